package io.fffs.datanode.server;

import io.fffs.common.io.Unmapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The read-only mappings of one READ answer's segment-file runs, so the event loop writes them to the socket as it
 * writes arena pages, and unmaps them once the answer is flushed (the kernel has copied them by then). Used from
 * the one event-loop thread that sends the answer.
 */
final class SegmentRunMaps {
  private final DataServerStats stats;
  private List<MappedByteBuffer> maps;

  SegmentRunMaps(DataServerStats stats) {
    this.stats = stats;
  }

  /**
   * {@code length} bytes at {@code position} of {@code file}, mapped; null when the stretch cannot be mapped (the
   * caller then sends it with sendfile).
   */
  ByteBuffer map(FileChannel file, long position, int length) {
    MappedByteBuffer map;
    try {
      map = file.map(FileChannel.MapMode.READ_ONLY, position, length);
    } catch (IOException | RuntimeException e) {
      return null;
    }
    if (maps == null) {
      maps = new ArrayList<>(4);
    }
    maps.add(map);
    stats.readRunsMapped.increment();
    stats.readRunMappingsOpen.increment();
    return map;
  }

  /** Unmaps every mapping; nothing may touch their bytes afterwards. */
  void unmapAll() {
    if (maps != null) {
      maps.forEach(Unmapper::unmap);
      stats.readRunMappingsOpen.add(-maps.size());
      maps = null;
    }
  }
}
