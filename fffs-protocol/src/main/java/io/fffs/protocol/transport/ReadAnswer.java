package io.fffs.protocol.transport;

import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import java.nio.ByteBuffer;

/**
 * The answer to one READ: its header (the DataNode's HLC, and the block length, resolved HLC and chunk CRCs, or an
 * error) and the bytes read, in the pieces they arrived in — socket buffers on TCP, a registered buffer on UCX —
 * uncopied and not yet checked. Whoever takes an answer {@link #release()}s it.
 */
public interface ReadAnswer {
  ResponseHeaderProto header();

  /**
   * The bytes read, in order, each piece from position to limit; empty for an error. Fresh views on each call: the
   * caller may move their positions; they are valid until {@link #release()}.
   */
  ByteBuffer[] payload();

  /** The total of {@link #payload()}'s remaining bytes. */
  int length();

  /** Gives the bytes' memory back to the transport. */
  void release();
}
