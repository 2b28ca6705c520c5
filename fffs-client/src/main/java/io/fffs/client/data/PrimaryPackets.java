package io.fffs.client.data;

import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The packets a pipeline writer ({@link ChainBlockWriter}, {@link ReplicatedBlockWriter}) sent its primary and has
 * not taken the answer of, oldest first, and the loop that cuts a write into them. A packet keeps its bytes when the
 * writer may have to send it again (after a refused token, {@link #resend}; to the followers, by fan-out): a copy,
 * or the caller's buffer itself when the caller keeps it unchanged until the primary applied it
 * ({@link BlockWriter#writeRetained}). Once the primary refused a packet, the rest of the write is kept unsent: a
 * DataNode applies nothing of a stream after a refused packet. Not thread-safe (one writer thread).
 */
final class PrimaryPackets {
  /** The answer of a packet the primary was not sent: it refused an earlier one, and gets it after a renewal. */
  private static final CompletableFuture<ResponseHeaderProto> NOT_SENT = CompletableFuture.completedFuture(null);

  /** A packet sent to the primary (or kept unsent), not yet answered. {@code bytes}: null when not kept. */
  record Pending(long offset, ByteBuffer bytes, CompletableFuture<ResponseHeaderProto> answer) {}

  /** How a packet's bytes are kept. */
  enum Keep { NONE, COPY, BY_REFERENCE }

  /** What the loop asks of its writer. */
  interface Writer {
    /** The refusal of the token in {@code e}, which a renewal can cure, or throws {@code e}. */
    FffsException refusalOrThrow(FffsException e) throws FffsException;

    /** Takes the answers that are in (a failure of the primary is thrown). */
    void takeAnswers() throws IOException;
  }

  private final ArrayDeque<Pending> pending = new ArrayDeque<>();

  /**
   * Sends {@code data}, written at {@code offset} of the block, to {@code primary} in packets of at most
   * {@code packetSize} bytes, taking answers in between. After {@code refusal} (given, or met on the way) nothing
   * more is sent and each packet is kept unsent; returns the refusal, or null. {@code retained}: the caller keeps
   * {@code data} unchanged until the primary applied it ({@link BlockWriter#writeRetained}; required for
   * {@link Keep#BY_REFERENCE}), so that the transport may send from it.
   */
  FffsException send(PacketWriter primary, long offset, ByteBuffer data, int packetSize, Keep keep,
      boolean retained, FffsException refusal, Writer writer) throws IOException {
    ByteBuffer rest = data.duplicate();
    long at = offset;
    while (rest.hasRemaining()) {
      int n = Math.min(packetSize, rest.remaining());
      ByteBuffer piece = rest.slice(rest.position(), n);
      ByteBuffer kept = switch (keep) {
        case NONE -> null;
        case COPY -> ByteBuffer.allocate(n).put(piece.duplicate()).flip();
        case BY_REFERENCE -> piece;
      };
      CompletableFuture<ResponseHeaderProto> answer = NOT_SENT;
      if (refusal == null) {
        try {
          // The caller's retained memory rather than a copy on the heap: a transport may send it from where it is.
          answer = primary.send(at, retained || kept == null ? piece : kept.duplicate(), null, retained);
        } catch (FffsException e) {
          refusal = writer.refusalOrThrow(e);
        }
      }
      pending.add(new Pending(at, kept, answer));
      rest.position(rest.position() + n);
      at += n;
      if (refusal == null) {
        try {
          writer.takeAnswers();
        } catch (FffsException e) {
          refusal = writer.refusalOrThrow(e);
        }
      }
    }
    return refusal;
  }

  /**
   * Sends every pending packet again, in order, to {@code primary} (a new stream, after a renewal). Their bytes stay
   * unchanged until applied: a copy only this keeps, or the caller's, retained.
   */
  void resend(PacketWriter primary) throws IOException {
    List<Pending> again = new ArrayList<>(pending);
    pending.clear();
    for (Pending packet : again) {
      pending.add(new Pending(packet.offset(), packet.bytes(), primary.send(packet.offset(),
          packet.bytes().duplicate(), null, true)));
    }
  }

  boolean isEmpty() {
    return pending.isEmpty();
  }

  /**
   * The bytes of the oldest pending packets, up to the first not answered or refused, that the primary applied: a
   * query, so that whoever asks how much was applied sends nothing (the answers are taken by {@link Writer}).
   */
  long appliedBytes() {
    long applied = 0;
    for (Pending packet : pending) {
      if (!packet.answer().isDone() || packet.answer().getNow(null) == null) {
        break;
      }
      applied += packet.bytes().remaining();
    }
    return applied;
  }

  /** The oldest pending packet, or null. */
  Pending peek() {
    return pending.peek();
  }

  Pending poll() {
    return pending.poll();
  }
}
