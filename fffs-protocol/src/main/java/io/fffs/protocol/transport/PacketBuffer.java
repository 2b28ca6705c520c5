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
}
