package io.fffs.client.data;

import java.io.Closeable;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The DataNode files a client's short-circuit reads copy from, opened once and kept: each arena's epoch file and page
 * files mapped read-only, segment files open for positional reads (the most recently used few). An epoch file whose
 * instance is not the one a DataNode answered with was replaced by a restarted DataNode: it and that arena's page
 * files are mapped again. Thread-safe; mappings are read with absolute gets only.
 */
final class ShortCircuitFiles implements Closeable {
  private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
      ByteOrder.LITTLE_ENDIAN);
  private static final int EPOCH_BYTES = 16;
  private static final int FRONTIER_AT = 8;
  private static final int OPEN_SEGMENTS = 64;

  private final Map<String, MappedByteBuffer> epochs = new HashMap<>();
  private final Map<String, MappedByteBuffer> arenaFiles = new HashMap<>();
  private final LinkedHashMap<String, FileChannel> segments = new LinkedHashMap<>(16, 0.75f, true);
  /** Closed with its client: a read still under way (one located ahead, say) opens no file any more. */
  private boolean closed;

  /** The epoch file at {@code path} of arena instance {@code instance}, mapped; {@link ShortCircuitStale} if not. */
  synchronized MappedByteBuffer epoch(String path, long instance) throws IOException {
    requireOpen(path);
    MappedByteBuffer map = epochs.get(path);
    if (map != null && (long) LONGS.getVolatile(map, 0) == instance) {
      return map;
    }
    forgetArena(Path.of(path).getParent());
    map = mapReadOnly(path, EPOCH_BYTES);
    epochs.put(path, map);
    if ((long) LONGS.getVolatile(map, 0) != instance) {
      throw new ShortCircuitStale("the arena of " + path + " is not the one the DataNode answered from");
    }
    return map;
  }

  /**
   * The eviction frontier an epoch file holds now. Read after the copy it checks: no load of the copy may move below
   * it (a load-load fence, then a volatile read).
   */
  static long frontier(MappedByteBuffer epoch) {
    VarHandle.loadLoadFence();
    return (long) LONGS.getVolatile(epoch, FRONTIER_AT);
  }

  synchronized MappedByteBuffer arenaFile(String path) throws IOException {
    requireOpen(path);
    MappedByteBuffer map = arenaFiles.get(path);
    if (map == null) {
      map = mapReadOnly(path, -1);
      arenaFiles.put(path, map);
    }
    return map;
  }

  synchronized FileChannel segment(String path) throws IOException {
    requireOpen(path);
    FileChannel channel = segments.get(path);
    if (channel == null) {
      channel = FileChannel.open(Path.of(path), StandardOpenOption.READ);
      segments.put(path, channel);
      if (segments.size() > OPEN_SEGMENTS) {
        Iterator<FileChannel> eldest = segments.values().iterator();
        closeQuietly(eldest.next());
        eldest.remove();
      }
    }
    return channel;
  }

  private void requireOpen(String path) throws ShortCircuitStale {
    if (closed) {
      throw new ShortCircuitStale("the client is closed: " + path + " is not opened");
    }
  }

  /** Forgets an unreadable segment file (deleted by the cleaner): the next read opens whatever is there now. */
  synchronized void forgetSegment(String path) {
    FileChannel channel = segments.remove(path);
    if (channel != null) {
      closeQuietly(channel);
    }
  }

  private void forgetArena(Path dir) {
    arenaFiles.keySet().removeIf(file -> Path.of(file).getParent().equals(dir));
  }

  private static MappedByteBuffer mapReadOnly(String path, long bytes) throws IOException {
    try (FileChannel channel = FileChannel.open(Path.of(path), StandardOpenOption.READ)) {
      return channel.map(FileChannel.MapMode.READ_ONLY, 0, bytes < 0 ? channel.size() : bytes);
    }
  }

  private static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // A read-only channel has nothing to lose.
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    segments.values().forEach(ShortCircuitFiles::closeQuietly);
    segments.clear();
    epochs.clear();
    arenaFiles.clear();
  }
}
