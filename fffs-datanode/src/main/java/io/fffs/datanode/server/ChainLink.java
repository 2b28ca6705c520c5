package io.fffs.datanode.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.CommonProtos.ErrorProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteResponseProto;
import io.fffs.protocol.frame.FrameFormat;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One write stream's link to the next member of its chain pipeline, and the order of the stream's answers. Every
 * write of the stream takes a {@link Slot} in the order it is applied; an applied write is forwarded to the next
 * member at its stamps, and its answer goes back upstream only once the next member answered it, as one answer that
 * says how many members after this one applied it ({@code downstreamApplied}). Answers leave in slot order.
 *
 * <p>When the link breaks — the next member refused a write, its connection closed, or it answered nothing for
 * {@code timeoutNanos} — the link forwards nothing more: the rest of the stream is applied here and answered with
 * {@code downstreamApplied = 0} and the reason, so that no member after the break ever misses an entry in the middle
 * of its log; the writer rebuilds the chain without the failed member.
 *
 * <p>The link exists before its connection does: writes forwarded while it connects wait in order and go out once
 * it is up ({@link #connected}), and the timeout counts from when each was forwarded, so a next member that cannot
 * be reached is reported as one that does not answer — never by blocking the thread that applies writes.
 * Thread-safe: slots are taken and filled on the store writer thread, the next member's answers arrive on the
 * link's event loop.
 */
final class ChainLink {
  /** One write of the stream: its own answer, and the next member's when it was forwarded. */
  static final class Slot {
    private ResponseHeaderProto local;
    private ResponseHeaderProto next;
    private boolean forwarded;
    private long sentNanos;
  }

  /** A forwarded write waiting for the connection: its request and payload. */
  private record Unsent(RequestHeaderProto request, ByteBuf payload) {}

  private final long streamId;
  private final Channel upstream;
  /** The connection to the next member, connecting until {@link #connected}. */
  private final Channel downstream;
  private final String nextAddress;
  private final long timeoutNanos;
  private final ArrayDeque<Slot> slots = new ArrayDeque<>();
  private final ArrayDeque<Slot> inFlight = new ArrayDeque<>();
  private final ArrayDeque<Unsent> unsent = new ArrayDeque<>();
  private final ScheduledFuture<?> timeoutCheck;
  private long nextCallId;
  private boolean connected;
  private FffsException broken;

  /**
   * @param downstream the connection to the next member, which the caller connects (or has connected) and then
   *     calls {@link #connected}; its closing breaks the link
   * @param timeoutNanos how long the oldest forwarded write may go unanswered, from when it was forwarded
   */
  ChainLink(long streamId, Channel upstream, Channel downstream, String nextAddress, long timeoutNanos) {
    this.streamId = streamId;
    this.upstream = upstream;
    this.downstream = downstream;
    this.nextAddress = nextAddress;
    this.timeoutNanos = timeoutNanos;
    long period = Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos) / 4);
    // On the upstream connection's loop: the downstream one may still be registering.
    this.timeoutCheck = upstream.eventLoop().scheduleAtFixedRate(this::checkTimeout, period, period,
        TimeUnit.MILLISECONDS);
    downstream.closeFuture().addListener(f -> broke(new FffsException(ErrorCode.IO_ERROR,
        "the connection to the next DataNode of the chain, " + nextAddress + ", closed")));
  }

  /** The connection is up: the writes forwarded meanwhile go out, in order. */
  void connected() {
    synchronized (this) {
      if (broken != null) {
        return;
      }
      connected = true;
      for (Unsent write = unsent.poll(); write != null; write = unsent.poll()) {
        downstream.write(frame(write.request(), write.payload()), downstream.voidPromise());
      }
      downstream.flush();
    }
  }

  long streamId() {
    return streamId;
  }

  /** The next write of the stream takes its place among the answers. */
  synchronized Slot open() {
    Slot slot = new Slot();
    slots.add(slot);
    return slot;
  }

  /**
   * Sends {@code header} and {@code payload} (released here) to the next member for {@code slot}'s write, unless the
   * link is broken.
   */
  void forward(Slot slot, RequestHeaderProto.Builder header, ByteBuf payload) {
    synchronized (this) {
      if (broken != null) {
        payload.release();
        return;
      }
      slot.forwarded = true;
      slot.sentNanos = System.nanoTime();
      inFlight.add(slot);
      RequestHeaderProto request = header.setCallId(++nextCallId).build();
      if (connected) {
        // One message and one task for the event loop: the payload is the received slice itself, not a copy.
        downstream.writeAndFlush(frame(request, payload), downstream.voidPromise());
      } else {
        unsent.add(new Unsent(request, payload));
      }
    }
  }

  /** The frame of a forwarded write; written under the lock, so that the writes reach the event loop in order. */
  private ByteBuf frame(RequestHeaderProto request, ByteBuf payload) {
    return Unpooled.wrappedBuffer(FrameFormat.prefix(downstream.alloc(), request, payload.readableBytes()), payload);
  }

  /** {@code slot}'s own answer (an applied write's, or its refusal). */
  void local(Slot slot, ResponseHeaderProto answer) {
    synchronized (this) {
      slot.local = answer;
      drain();
    }
  }

  /** Link event loop: the next member's answer to the oldest write in flight. */
  void answered(ResponseHeaderProto answer) {
    synchronized (this) {
      Slot slot = inFlight.poll();
      if (slot == null) {
        return;
      }
      slot.next = answer;
      if (answer.hasError()) {
        // It refuses the rest of its stream after a refusal: nothing more goes there.
        FffsException refusal = FffsException.fromProto(answer.getError());
        breakLink(new FffsException(refusal.code(), "DataNode " + nextAddress + ": " + refusal.detail()));
      }
      drain();
    }
  }

  /** The link is broken: writes in flight and later ones are answered without the members after this one. */
  void broke(FffsException why) {
    synchronized (this) {
      breakLink(why);
      drain();
    }
  }

  private void breakLink(FffsException why) {
    if (broken == null) {
      broken = why;
    }
    for (Slot slot : inFlight) {
      slot.forwarded = false;  // answered without the next member
    }
    inFlight.clear();
    for (Unsent write = unsent.poll(); write != null; write = unsent.poll()) {
      write.payload().release();
    }
    timeoutCheck.cancel(false);
    downstream.close();  // a connect still under way is cancelled
  }

  private void checkTimeout() {
    synchronized (this) {
      Slot oldest = inFlight.peek();
      if (oldest != null && System.nanoTime() - oldest.sentNanos > timeoutNanos) {
        breakLink(new FffsException(ErrorCode.IO_ERROR, "the next DataNode of the chain, " + nextAddress
            + (connected ? ", answered no write within " : ", could not be reached within ")
            + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms"));
        drain();
      }
    }
  }

  /** Sends, in order, every answer at the head that is complete. Under the lock. */
  private void drain() {
    boolean sent = false;
    for (Slot head = slots.peek(); head != null && complete(head); head = slots.peek()) {
      slots.poll();
      Responses.send(upstream, combined(head), false);
      sent = true;
    }
    if (sent) {
      upstream.flush();
    }
  }

  private boolean complete(Slot slot) {
    return slot.local != null && (!slot.forwarded || slot.next != null);
  }

  private ResponseHeaderProto combined(Slot slot) {
    if (slot.local.hasError() || !slot.local.hasWrite()) {
      return slot.local;
    }
    WriteResponseProto.Builder write = slot.local.getWrite().toBuilder();
    ResponseHeaderProto next = slot.next;
    if (next != null && !next.hasError()) {
      write.setDownstreamApplied(1 + next.getWrite().getDownstreamApplied());
      if (next.getWrite().hasDownstreamError()) {
        write.setDownstreamError(next.getWrite().getDownstreamError());
      }
    } else {
      write.setDownstreamApplied(0).setDownstreamError(reason(next));
    }
    return slot.local.toBuilder().setWrite(write).build();
  }

  private ErrorProto reason(ResponseHeaderProto next) {
    if (next != null) {
      return ErrorProto.newBuilder(next.getError()).setMessage("DataNode " + nextAddress + ": "
          + next.getError().getMessage()).build();
    }
    FffsException why = broken != null ? broken : new FffsException(ErrorCode.IO_ERROR,
        "the write was not forwarded to " + nextAddress);
    return why.toProto();
  }

  /** Closes the link (the stream ended or its connection closed); answers still owed go back without it. */
  void close() {
    broke(new FffsException(ErrorCode.IO_ERROR, "the chain link to " + nextAddress + " was closed"));
  }
}
