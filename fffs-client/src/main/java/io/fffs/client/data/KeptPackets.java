package io.fffs.client.data;

import io.fffs.protocol.transport.PacketBuffer;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The packets a single-DataNode writer sent that its DataNode has not acknowledged yet, oldest first, kept so that
 * after a refused token they go out again through a writer with a fresh one: by reference to the transport's own
 * buffer where the transport can keep it ({@link PacketBuffer#retain}), else as a copy. About a write window is
 * held: acknowledged packets are let go as new ones are sent. Not thread-safe (the writer's thread).
 */
final class KeptPackets {
  /** A packet: where in the block, its bytes, and the bytes sent up to and including it. */
  record Packet(long offset, ByteBuffer bytes, long end) {}

  private record Kept(Packet packet, PacketBuffer retained) {}

  private final ArrayDeque<Kept> kept = new ArrayDeque<>();
  private long sent;

  /** Keeps {@code payload}, filled with {@code length} bytes for {@code offset}, before the channel takes it. */
  void add(long offset, PacketBuffer payload, int length) {
    ByteBuffer bytes = payload.retain();
    PacketBuffer retained = payload;
    if (bytes == null) {
      bytes = ByteBuffer.allocate(length).put(payload.bytes().duplicate().clear().limit(length)).flip();
      retained = null;
    }
    sent += length;
    kept.add(new Kept(new Packet(offset, bytes, sent), retained));
  }

  /** Lets go of the packets within the first {@code acknowledged} bytes sent. */
  void forget(long acknowledged) {
    while (!kept.isEmpty() && kept.peek().packet().end() <= acknowledged) {
      release(kept.poll());
    }
  }

  /** The packets past the first {@code acknowledged} bytes sent, in order (valid until {@link #releaseAll}). */
  List<Packet> after(long acknowledged) {
    forget(acknowledged);
    List<Packet> rest = new ArrayList<>(kept.size());
    for (Kept packet : kept) {
      rest.add(new Packet(packet.packet().offset(), packet.packet().bytes().duplicate(), packet.packet().end()));
    }
    return rest;
  }

  void releaseAll() {
    while (!kept.isEmpty()) {
      release(kept.poll());
    }
  }

  private static void release(Kept packet) {
    if (packet.retained() != null) {
      packet.retained().release();
    }
  }
}
