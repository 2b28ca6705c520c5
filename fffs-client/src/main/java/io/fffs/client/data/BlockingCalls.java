package io.fffs.client.data;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.protocol.frame.BlockingFrameChannel;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Requests without payload whose answers carry none (the LOCAL_READ of a short-circuit read) over plain blocking
 * connections to the DataNodes' data ports, a few kept per DataNode: a short-circuit reader needs no event loop,
 * buffer pool or pipeline, and a fresh client that reads only through the short circuit never loads them. Only
 * where the data port runs without TLS. Thread-safe: each call leases a connection of its own.
 */
final class BlockingCalls implements Closeable {
  private static final int KEPT_PER_DATANODE = 4;

  private final int timeoutMillis;
  private final int maxFrameBytes;
  private final AtomicLong nextCallId = new AtomicLong(1);
  private final Map<String, ConcurrentLinkedDeque<BlockingFrameChannel>> idle = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** @param timeoutMillis bounds a connect and the wait for each answer */
  BlockingCalls(long timeoutMillis, int maxFrameBytes) {
    this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, timeoutMillis);
    this.maxFrameBytes = maxFrameBytes;
  }

  /** Sends {@code request} (its callId set here) and returns the answer's header, which may carry an error. */
  ResponseHeaderProto call(DatanodeIdProto datanode, RequestHeaderProto.Builder request) throws IOException {
    if (closed) {
      throw new IOException("the data-transfer client is closed");
    }
    String key = datanode.getHost() + ":" + datanode.getDataPort();
    ConcurrentLinkedDeque<BlockingFrameChannel> kept = idle.computeIfAbsent(key, k -> new ConcurrentLinkedDeque<>());
    BlockingFrameChannel channel = kept.pollFirst();
    ResponseHeaderProto answer;
    if (channel != null) {
      try {
        answer = callOn(channel, key, request);
      } catch (SocketTimeoutException slow) {
        throw slow;  // the DataNode is there but slow: a second wait would only double the time
      } catch (IOException stale) {
        // A kept connection the DataNode closed meanwhile (an idle timeout, a restart): the query goes on a new one.
        channel = connect(datanode);
        answer = callOn(channel, key, request);
      }
    } else {
      channel = connect(datanode);
      answer = callOn(channel, key, request);
    }
    if (closed || kept.size() >= KEPT_PER_DATANODE) {
      channel.close();
    } else {
      kept.addFirst(channel);
    }
    return answer;
  }

  private BlockingFrameChannel connect(DatanodeIdProto datanode) throws IOException {
    return BlockingFrameChannel.connect(new InetSocketAddress(datanode.getHost(), datanode.getDataPort()),
        timeoutMillis, maxFrameBytes);
  }

  /** One request and its answer on {@code channel}; closes the channel if either fails. */
  private ResponseHeaderProto callOn(BlockingFrameChannel channel, String key, RequestHeaderProto.Builder request)
      throws IOException {
    try {
      RequestHeaderProto header = request.setCallId(nextCallId.getAndIncrement()).build();
      channel.send(header, null);
      ResponseHeaderProto answer = channel.receiveHeader(ResponseHeaderProto.parser());
      if (answer.getCallId() != header.getCallId()) {
        throw new IOException("DataNode " + key + " answered call " + answer.getCallId() + " to call "
            + header.getCallId());
      }
      return answer;
    } catch (IOException | RuntimeException e) {
      channel.close();  // its stream is in an unknown state
      throw e;
    }
  }

  @Override
  public void close() {
    closed = true;
    for (ConcurrentLinkedDeque<BlockingFrameChannel> kept : idle.values()) {
      for (BlockingFrameChannel channel; (channel = kept.pollFirst()) != null; ) {
        try {
          channel.close();
        } catch (IOException e) {
          // Nothing of a closed call is lost.
        }
      }
    }
  }
}
