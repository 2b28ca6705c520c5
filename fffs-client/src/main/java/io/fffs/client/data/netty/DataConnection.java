package io.fffs.client.data.netty;

import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.protocol.frame.Frame;
import io.fffs.protocol.frame.FrameFormat;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One client connection to a DataNode's data server. Requests may be pipelined: each gets a fresh callId and a
 * future that the response with that callId completes (on the event loop, in the order responses arrive). When
 * the connection breaks, every outstanding call fails with an {@link IOException} naming the DataNode.
 * Thread-safe; one request is written as one Netty message, so requests from several threads never interleave.
 */
public final class DataConnection {
  private final InetSocketAddress address;
  private final Map<Long, CompletableFuture<Frame<ResponseHeaderProto>>> pending = new ConcurrentHashMap<>();
  private final AtomicLong nextCallId = new AtomicLong(1);
  private volatile Channel channel;
  private volatile IOException broken;

  DataConnection(InetSocketAddress address) {
    this.address = address;
  }

  void attach(Channel channel) {
    this.channel = channel;
  }

  /** The inbound handler that completes the calls of this connection. */
  ChannelInboundHandlerAdapter handler() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      @SuppressWarnings("unchecked")
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Frame<ResponseHeaderProto> frame = (Frame<ResponseHeaderProto>) msg;
        CompletableFuture<Frame<ResponseHeaderProto>> call = pending.remove(frame.header().getCallId());
        if (call == null || !call.complete(frame)) {
          frame.release();
        }
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        fail(new IOException("the connection to DataNode " + address + " was closed"));
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(new IOException("the connection to DataNode " + address + " failed: " + cause.getMessage(), cause));
        ctx.close();
      }
    };
  }

  private void fail(IOException cause) {
    if (broken == null) {
      broken = cause;
    }
    for (Long callId : pending.keySet()) {
      CompletableFuture<Frame<ResponseHeaderProto>> call = pending.remove(callId);
      if (call != null) {
        call.completeExceptionally(cause);
      }
    }
  }

  public InetSocketAddress address() {
    return address;
  }

  public boolean isUsable() {
    return broken == null && channel.isActive();
  }

  public int outstanding() {
    return pending.size();
  }

  /** Completes (normally) once every call outstanding now has been answered or has failed. */
  CompletableFuture<Void> drained() {
    return CompletableFuture.allOf(pending.values().toArray(new CompletableFuture<?>[0])).handle((ok, e) -> null);
  }

  /**
   * Sends a request (its callId is set here) with {@code payload} (owned by this call from now on; may be null).
   * The returned future completes with the response frame, whose payload the caller must release.
   */
  public CompletableFuture<Frame<ResponseHeaderProto>> send(RequestHeaderProto.Builder header, ByteBuf payload,
      boolean flush) {
    long callId = nextCallId.getAndIncrement();
    RequestHeaderProto built = header.setCallId(callId).build();
    CompletableFuture<Frame<ResponseHeaderProto>> call = new CompletableFuture<>();
    ByteBuf body = payload == null ? Unpooled.EMPTY_BUFFER : payload;
    IOException failure = broken;
    if (failure != null) {
      body.release();
      call.completeExceptionally(failure);
      return call;
    }
    pending.put(callId, call);
    ByteBuf frame = Unpooled.wrappedBuffer(FrameFormat.prefix(channel.alloc(), built, body.readableBytes()), body);
    (flush ? channel.writeAndFlush(frame) : channel.write(frame)).addListener(done -> {
      if (!done.isSuccess() && pending.remove(callId) != null) {
        call.completeExceptionally(new IOException("cannot send to DataNode " + address + ": "
            + done.cause().getMessage(), done.cause()));
      }
    });
    if (broken != null && pending.remove(callId) != null) {
      call.completeExceptionally(broken);
    }
    return call;
  }

  public void flush() {
    channel.flush();
  }

  public io.netty.buffer.ByteBufAllocator alloc() {
    return channel.alloc();
  }

  /**
   * Waits for a call's response. On a timeout the connection is closed (its stream can no longer be trusted) and
   * the response, should it still come, is released.
   */
  public Frame<ResponseHeaderProto> await(CompletableFuture<Frame<ResponseHeaderProto>> call, long timeoutMillis)
      throws IOException {
    return await(call, timeoutMillis, Frame::release);
  }

  /**
   * Waits for an answer derived from a call of this connection; on a timeout or an interrupt the connection is
   * closed and {@code late} is given the answer, should it still come.
   */
  <T> T await(CompletableFuture<T> answer, long timeoutMillis, Consumer<? super T> late) throws IOException {
    try {
      return answer.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof IOException ? (IOException) cause
          : new IOException("call to DataNode " + address + " failed: " + cause, cause);
    } catch (TimeoutException e) {
      answer.thenAccept(late);
      close();
      throw new IOException("DataNode " + address + " did not answer within " + timeoutMillis + " ms");
    } catch (InterruptedException e) {
      answer.thenAccept(late);
      close();
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted waiting for DataNode " + address);
    }
  }

  public void close() {
    channel.close();
  }

  @Override
  public String toString() {
    return "DataConnection to " + address + (broken != null ? " (broken)" : "");
  }
}
