package io.fffs.protocol.transport;

import java.nio.ByteBuffer;

/**
 * Room for one WRITE payload that the transport owns: a direct buffer a TCP channel sends from, a registered buffer
 * the DataNode fetches from over UCX. The writer copies its packet into {@link #bytes()} once, checksumming as it
 * goes, and hands it to {@link DataChannel#write}.
 */
public interface PacketBuffer {
  /** Exactly the payload's length of room, from position 0. */
  ByteBuffer bytes();

  /**
   * Keeps the filled payload readable after {@link DataChannel#write} took it, until {@link #release()}, so that a
   * writer can send it again without a copy of its own: returns its bytes (read-only), or null when this transport
   * cannot keep them (a registered buffer goes back to its pool once the DataNode fetched it).
   */
  default ByteBuffer retain() {
    return null;
  }

  /** Gives back what {@link #retain()} kept. */
  default void release() {
  }
}
