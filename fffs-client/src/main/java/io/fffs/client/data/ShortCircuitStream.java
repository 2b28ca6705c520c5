package io.fffs.client.data;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.LocalReadResponseProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A sequential read of a block on this host through its DataNode's files ({@link ShortCircuit}): one LOCAL_READ per
 * request-size piece, whose bytes the caller's reads copy straight into their buffers. From the first copy that
 * fails its check on, the rest of the range is read through the data port ({@code fallback}).
 */
final class ShortCircuitStream implements BlockReadStream {
  /** Opens a read of the block through the data port from {@code at} to the stream's end. */
  @FunctionalInterface
  interface Fallback {
    BlockReadStream open(long at) throws IOException;
  }

  private final ShortCircuit shortCircuit;
  private final DatanodeIdProto datanode;
  private final long blockId;
  private final BlockToken token;
  private final TimeSpec time;
  private final long end;
  private final Fallback fallback;
  private long position;
  private LocalReadResponseProto answer;
  private long answerStart;
  private long answerLength;
  private int asked;
  private BlockReadStream socket;

  ShortCircuitStream(ShortCircuit shortCircuit, DatanodeIdProto datanode, long blockId, BlockToken token,
      TimeSpec time, long offset, long end, Fallback fallback) {
    this.shortCircuit = shortCircuit;
    this.datanode = datanode;
    this.blockId = blockId;
    this.token = token;
    this.time = time;
    this.position = offset;
    this.end = end;
    this.fallback = fallback;
  }

  @Override
  public long position() {
    return socket != null ? socket.position() : position;
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    if (socket != null) {
      return socket.read(dst);
    }
    if (position >= end) {
      return -1;
    }
    try {
      if (answer == null || position >= answerStart + answerLength) {
        if (answer != null && answerLength < asked) {
          return -1;  // the block ended within the last piece as of the time read
        }
        asked = (int) Math.min(shortCircuit.requestSize(), end - position);
        answer = shortCircuit.locate(datanode, blockId, token, position, asked, time);
        answerStart = position;
        answerLength = ShortCircuitCopy.length(answer);
        if (answerLength == 0) {
          return -1;
        }
      }
      int n = shortCircuit.copy(datanode, answer, position - answerStart, dst);
      position += n;
      return n;
    } catch (ShortCircuitStale e) {
      socket = fallback.open(position);
      return socket.read(dst);
    }
  }

  @Override
  public void close() {
    if (socket != null) {
      socket.close();
    }
  }
}
