package io.fffs.client.data;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.LocalReadResponseProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Short-circuit reads ({@code fffs.client.read.shortcircuit}): for a replica on this host, the client asks the
 * DataNode where a range's bytes are (LOCAL_READ, showing the block's READ token; the DataNode resolves the time as
 * for a READ) and copies them from the DataNode's arena and segment files itself ({@link ShortCircuitCopy}), in
 * requests of {@code fffs.client.read.shortcircuit.request-size}. A copy that fails its check goes on through the
 * data port from where it stopped; a DataNode that serves no short-circuit reads, or whose files this process cannot
 * open, is read through its data port from then on. Thread-safe.
 */
final class ShortCircuit implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ShortCircuit.class);
  private static final int SCRATCH_BYTES = 1 << 20;

  /** One request without payload to a DataNode, answered or thrown typed (the client's TCP call). */
  @FunctionalInterface
  interface Call {
    ResponseHeaderProto call(DatanodeIdProto datanode, RequestHeaderProto.Builder request) throws IOException;
  }

  /** The rest of a read through the data port, from block offset {@code at} into {@code dst}. */
  @FunctionalInterface
  interface SocketRead {
    ReadResult read(long at, ByteBuffer dst) throws IOException;
  }

  private final int requestSize;
  private final Call call;
  private final ShortCircuitFiles files = new ShortCircuitFiles();
  private final ShortCircuitStats stats = new ShortCircuitStats();
  private final ConcurrentLinkedDeque<ShortCircuitCopy> copies = new ConcurrentLinkedDeque<>();
  /** DataNodes (host:port) read through their data port only. */
  private final Set<String> refused = ConcurrentHashMap.newKeySet();

  ShortCircuit(int requestSize, Call call) {
    this.requestSize = requestSize;
    this.call = call;
  }

  ShortCircuitStats stats() {
    return stats;
  }

  int requestSize() {
    return requestSize;
  }

  /** Whether reads of {@code datanode} try the short circuit. */
  boolean applies(DatanodeIdProto datanode) {
    return LocalHosts.isLocal(datanode.getHost()) && !refused.contains(key(datanode));
  }

  /**
   * Where {@code length} bytes of the block from {@code offset} as of {@code time} are; {@link ShortCircuitStale}
   * when this DataNode serves no short-circuit reads (it is not asked again). The DataNode's refusals (a bad token,
   * a time in the future, ...) are thrown as they are.
   */
  LocalReadResponseProto locate(DatanodeIdProto datanode, long blockId, BlockToken token, long offset, int length,
      TimeSpec time) throws IOException {
    RequestHeaderProto.Builder request = RequestHeaders.of(token, blockId, offset, length, time, HlcTimestamp.ZERO)
        .setOp(OpProto.LOCAL_READ);
    try {
      LocalReadResponseProto answer = call.call(datanode, request).getLocalRead();
      stats.requests.increment();
      return answer;
    } catch (FffsException e) {
      if (e.code() != ErrorCode.UNSUPPORTED) {
        throw e;
      }
      refuse(datanode, e.getMessage());
      throw new ShortCircuitStale(e.getMessage(), e);
    }
  }

  /** Reads {@code datanode}'s files no more (with the reason, once). */
  void refuse(DatanodeIdProto datanode, String reason) {
    stats.refused.increment();
    if (refused.add(key(datanode))) {
      LOG.info("Reading DataNode {} through its data port from now on, not its files: {}", key(datanode), reason);
    }
  }

  /**
   * Copies the answer's bytes from {@code skip} into {@code dst}; a copy that cannot be trusted is
   * {@link ShortCircuitStale} (dst unchanged). A DataNode whose arena epoch file cannot be opened is refused.
   */
  int copy(DatanodeIdProto datanode, LocalReadResponseProto answer, long skip, ByteBuffer dst)
      throws ShortCircuitStale {
    ShortCircuitCopy copy = copies.pollFirst();
    if (copy == null) {
      copy = new ShortCircuitCopy(files, stats, SCRATCH_BYTES);
    }
    try {
      return copy.copy(answer, skip, dst);
    } catch (ShortCircuitStale e) {
      if (e.getCause() instanceof java.nio.file.AccessDeniedException
          || e.getCause() instanceof java.nio.file.NoSuchFileException
          && String.valueOf(e.getMessage()).contains(answer.getArenaEpochFile())) {
        refuse(datanode, e.getMessage());
      }
      throw e;
    } finally {
      copies.addFirst(copy);
    }
  }

  /**
   * Reads up to {@code dst.remaining()} bytes of a block from {@code offset} as of {@code time} (fewer at its end)
   * from the DataNode's files, going on through {@code socket} from where a copy fails its check.
   */
  ReadResult read(DatanodeIdProto datanode, long blockId, BlockToken token, long offset, ByteBuffer dst,
      TimeSpec time, SocketRead socket) throws IOException {
    int total = 0;
    long blockLength = -1;
    HlcTimestamp resolved = null;
    do {
      int asked = Math.min(dst.remaining(), requestSize);
      int n;
      try {
        LocalReadResponseProto answer = locate(datanode, blockId, token, offset + total, asked, time);
        if (resolved == null) {
          resolved = HlcTimestamp.fromProto(answer.getResolvedHlc());
          blockLength = answer.getBlockLength();
        }
        n = copy(datanode, answer, 0, dst);
      } catch (ShortCircuitStale e) {
        ReadResult rest = socket.read(offset + total, dst);
        return new ReadResult(total + rest.bytesRead(), resolved == null ? rest.blockLength() : blockLength,
            resolved == null ? rest.resolvedHlc() : resolved);
      }
      total += n;
      if (n < asked) {
        break;  // the block ends here as of that time
      }
    } while (dst.hasRemaining());
    return new ReadResult(total, Math.max(blockLength, 0), resolved);
  }

  private static String key(DatanodeIdProto datanode) {
    return datanode.getHost() + ":" + datanode.getDataPort();
  }

  @Override
  public void close() {
    files.close();
  }
}
