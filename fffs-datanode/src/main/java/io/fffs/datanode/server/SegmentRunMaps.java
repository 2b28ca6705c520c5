package io.fffs.datanode.server;

import io.fffs.common.io.Unmapper;
import io.fffs.datanode.store.ReadView;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The bytes of one READ answer's segment-file runs as read-only mappings, so the event loop writes them to the
 * socket as it writes arena pages: from the mapping the segment file keeps of the window they lie in
 * ({@link io.fffs.datanode.store.persist.SegmentPageReader.Handle#mapped}), else from a mapping of the run alone,
 * unmapped once the answer is flushed (the kernel has copied the bytes by then). Used from the one event-loop thread
 * that sends the answer.
 */
final class SegmentRunMaps {
  /** After a mapping fails, runs go out with sendfile for this long: a failed map costs the JDK a GC and a sleep. */
  private static final long REFUSED_NANOS = 10_000_000_000L;
  /** Until when ({@link System#nanoTime}) runs are not mapped alone; 0: they are. */
  private static volatile long refusedUntil;

  private final DataServerStats stats;
  private List<MappedByteBuffer> maps;

  SegmentRunMaps(DataServerStats stats) {
    this.stats = stats;
  }

  /** The bytes of {@code run} (in a segment file), mapped; null when they cannot be (then send them with sendfile). */
  ByteBuffer map(ReadView.Run run) {
    ByteBuffer window = run.fileWindow();
    if (window != null) {
      stats.readRunsMapped.increment();
      return window;
    }
    return mapAlone(run);
  }

  private ByteBuffer mapAlone(ReadView.Run run) {
    long until = refusedUntil;
    if (until != 0 && System.nanoTime() - until < 0) {
      return null;
    }
    MappedByteBuffer map;
    try {
      map = run.channel().map(FileChannel.MapMode.READ_ONLY, run.position(), run.length());
    } catch (IOException | RuntimeException e) {
      refusedUntil = System.nanoTime() + REFUSED_NANOS;
      return null;
    }
    if (maps == null) {
      maps = new ArrayList<>(4);
    }
    maps.add(map);
    stats.readRunsMapped.increment();
    stats.readRunsMappedAlone.increment();
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
