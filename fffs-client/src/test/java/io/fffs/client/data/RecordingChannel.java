package io.fffs.client.data;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteResponseProto;
import io.fffs.protocol.transport.DataChannel;
import io.fffs.protocol.transport.PacketBuffer;
import io.fffs.protocol.transport.ReadAnswer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * A {@link DataChannel} that carries nothing anywhere: it records what the writer above it sends — each WRITE with
 * whether it was to go out at once, and each flush — and answers a WRITE only when the test says so, so a test can
 * see exactly how a writer paces its packets with no network and no clock in the way. Writes from one thread, acks
 * from the test's.
 */
final class RecordingChannel implements DataChannel {
  /**
   * One WRITE as sent: its request, its payload's length, whether it was flushed with it, the flushes before it,
   * its answer to come.
   */
  record Sent(RequestHeaderProto request, int length, boolean flushed, int flushesBefore,
      CompletableFuture<ResponseHeaderProto> ack, ByteBuffer payload, boolean wrapped) {}

  /** A payload buffer of its own, or the writer's memory ({@code wrapped}). */
  private record Packet(ByteBuffer bytes, int length, boolean wrapped) implements PacketBuffer {}

  private final List<Sent> sent = new ArrayList<>();
  private final Semaphore sends = new Semaphore(0);
  private final boolean sendsEachWrite;
  private int flushes;
  private int acked;
  private long length;

  RecordingChannel(boolean sendsEachWrite) {
    this.sendsEachWrite = sendsEachWrite;
  }

  @Override
  public String peer() {
    return "a recording channel";
  }

  @Override
  public int maxPacket() {
    return Integer.MAX_VALUE;
  }

  @Override
  public int maxRead() {
    return Integer.MAX_VALUE;
  }

  @Override
  public boolean sendsEachWrite() {
    return sendsEachWrite;
  }

  @Override
  public PacketBuffer allocate(int length) {
    return new Packet(ByteBuffer.allocate(length), length, false);
  }

  /** Direct memory is sent from where it is, as over TCP. */
  @Override
  public PacketBuffer wrap(ByteBuffer bytes) {
    return bytes.isDirect() ? new Packet(bytes.slice(), bytes.remaining(), true) : null;
  }

  @Override
  public synchronized CompletableFuture<ResponseHeaderProto> write(RequestHeaderProto.Builder request,
      PacketBuffer payload, boolean flush) {
    CompletableFuture<ResponseHeaderProto> ack = new CompletableFuture<>();
    Packet packet = (Packet) payload;
    sent.add(new Sent(request.setCallId(sent.size()).build(), packet.length(), flush, flushes, ack,
        packet.bytes().duplicate().position(0).limit(packet.length()), packet.wrapped()));
    sends.release();
    return ack;
  }

  @Override
  public CompletableFuture<ReadAnswer> read(RequestHeaderProto.Builder request, int asked, boolean mayWait,
      boolean flush) {
    throw new UnsupportedOperationException("a recording channel carries writes only");
  }

  @Override
  public synchronized void flush() {
    flushes++;
  }

  @Override
  public ReadAnswer await(CompletableFuture<ReadAnswer> answer) {
    throw new UnsupportedOperationException("a recording channel carries writes only");
  }

  @Override
  public void abandon(CompletableFuture<ReadAnswer> answer) {
    throw new UnsupportedOperationException("a recording channel carries writes only");
  }

  @Override
  public void release() {
  }

  /** Waits until {@code count} WRITEs in all have been sent. */
  void awaitSent(int count) throws InterruptedException {
    sends.acquire(count);
    sends.release(count);
  }

  synchronized List<Sent> sent() {
    return List.copyOf(sent);
  }

  synchronized int flushes() {
    return flushes;
  }

  /** Acknowledges the oldest WRITEs not acknowledged yet, {@code count} of them, as applied. */
  void ack(int count) {
    for (int i = 0; i < count; i++) {
      ackAt(null);
    }
  }

  /** Acknowledges the oldest WRITE not acknowledged yet as applied at {@code stamp} (null: the next test stamp). */
  void ackAt(HlcProto stamp) {
    Sent next;
    HlcProto at;
    synchronized (this) {
      next = sent.get(acked++);
      length = Math.max(length, next.request().getWrite().getOffset() + next.length());
      at = stamp != null ? stamp : hlc(acked);
    }
    next.ack().complete(ResponseHeaderProto.newBuilder().setCallId(0).setHlc(at)
        .setWrite(WriteResponseProto.newBuilder().setEntryHlc(at).setBlockLength(length)).build());
  }

  /** Answers the oldest WRITE not acknowledged yet with a refusal of its token, as a DataNode that lost the key. */
  void refuse() {
    Sent next;
    synchronized (this) {
      next = sent.get(acked++);
    }
    next.ack().complete(ResponseHeaderProto.newBuilder().setCallId(0).setHlc(hlc(acked)).setError(
        new FffsException(ErrorCode.ACCESS_DENIED, "block token refused: key unknown").toProto()).build());
  }

  /** Fails the oldest WRITE not acknowledged yet, as a broken connection does. */
  void fail(java.io.IOException cause) {
    Sent next;
    synchronized (this) {
      next = sent.get(acked++);
    }
    next.ack().completeExceptionally(cause);
  }

  static HlcProto hlc(int n) {
    return HlcProto.newBuilder().setPacked((1_800_000_000_000_000L << 10) + n).build();
  }
}
