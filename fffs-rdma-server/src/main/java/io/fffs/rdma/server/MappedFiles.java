package io.fffs.rdma.server;

import io.fffs.rdma.UcxWorkerLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.IdentityHashMap;
import java.util.Map;
import org.openucx.jucx.ucp.UcpMemory;

/**
 * The DataNode's arena files, mapped and registered with UCX on first use and kept so until the server stops, so
 * that a read's pages are PUT straight from the arena and a write's bytes are GET straight into the pages reserved
 * for it (no copy either way). The mapping is a second shared mapping of the same tmpfs file, so it sees exactly
 * the bytes of the store's own mapping; it is writable for the GETs, which land only in pages a
 * {@code PageReservation} holds. Thread-safe.
 */
final class MappedFiles {
  /** A registered file: its mapping and the mapping's address. */
  record Mapped(ByteBuffer bytes, long address) {}

  private final UcxWorkerLoop loop;
  private final Map<FileChannel, Mapped> files = new IdentityHashMap<>();
  private final Map<FileChannel, UcpMemory> registrations = new IdentityHashMap<>();

  MappedFiles(UcxWorkerLoop loop) {
    this.loop = loop;
  }

  /** The registered mapping of {@code channel} (an arena file); maps and registers it the first time. */
  synchronized Mapped of(FileChannel channel) throws IOException {
    Mapped mapped = files.get(channel);
    if (mapped == null) {
      MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size());
      UcpMemory memory = loop.register(map);
      mapped = new Mapped(map, memory.getAddress());
      files.put(channel, mapped);
      registrations.put(channel, memory);
    }
    return mapped;
  }

  /** Deregisters everything (on the worker loop, at shutdown). */
  synchronized void deregisterAll() {
    for (UcpMemory memory : registrations.values()) {
      memory.deregister();
    }
    registrations.clear();
    files.clear();
  }
}
