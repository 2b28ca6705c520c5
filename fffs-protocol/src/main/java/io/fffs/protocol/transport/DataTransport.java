package io.fffs.protocol.transport;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import java.io.Closeable;
import java.io.IOException;

/**
 * How a client reaches DataNodes over one transport (TCP with Netty, UCX, ...): it hands out {@link DataChannel}s,
 * which move requests and their payload bytes. Everything else a data client does — packets, windows, chunk
 * checksums, the client HLC, read pipelining, errors — is written once above this seam, in {@code fffs-client}.
 * Thread-safe.
 */
public interface DataTransport extends Closeable {
  /** The transport's name as {@code fffs.transport} spells it ({@code tcp}, {@code ucx}). */
  String name();

  /**
   * A channel to {@code datanode} for one writer, one read or one read stream; {@link DataChannel#release()} it when
   * done. Null when this transport does not reach that DataNode (it does not offer the transport, or refused it at
   * set-up): the client then uses TCP with it.
   *
   * @throws IOException when the DataNode cannot be reached, or when this transport is required but cannot serve it
   *     ({@code UNSUPPORTED})
   */
  DataChannel open(DatanodeIdProto datanode) throws IOException;
}
