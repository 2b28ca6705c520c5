package io.fffs.client.data;

import com.sun.nio.file.ExtendedOpenOption;
import io.fffs.common.io.PageCache;
import java.io.Closeable;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The DataNode files a client's short-circuit reads copy from, opened once and kept: each arena's epoch file and page
 * files mapped read-only, segment files open for positional reads (the most recently used few; with O_DIRECT too,
 * where the file system takes it, for reads around the page cache). An epoch file whose
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
  /** The same files opened with O_DIRECT, for reads around the page cache. */
  private final LinkedHashMap<String, DirectFile> directSegments = new LinkedHashMap<>(16, 0.75f, true);
  /** Directories whose file system refused an O_DIRECT open or read: their files are read through the page cache. */
  private final Set<Path> noDirect = new HashSet<>();
  /** Per directory of segment files: whether mincore answers truly for them ({@link #residencyKnown}). */
  private final Map<Path, Boolean> residencyKnown = new HashMap<>();
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

  /**
   * Segment file {@code path} opened with O_DIRECT, or null where that cannot be done: its file system refuses
   * O_DIRECT (tmpfs, say) or has blocks larger than {@link ShortCircuitPreload#ALIGNMENT} (remembered for its
   * directory), or the open failed otherwise (tried again next time). Read it through the page cache then.
   */
  synchronized DirectFile directSegment(String path) {
    if (closed) {
      return null;
    }
    DirectFile direct = directSegments.get(path);
    if (direct == null) {
      Path file = Path.of(path);
      if (noDirect.contains(file.getParent())) {
        return null;
      }
      FileChannel channel;
      try {
        long blockSize = Files.getFileStore(file).getBlockSize();
        if (blockSize > ShortCircuitPreload.ALIGNMENT || ShortCircuitPreload.ALIGNMENT % blockSize != 0) {
          noDirect.add(file.getParent());
          return null;
        }
        channel = FileChannel.open(file, StandardOpenOption.READ, ExtendedOpenOption.DIRECT);
      } catch (UnsupportedOperationException e) {
        noDirect.add(file.getParent());
        return null;
      } catch (IOException e) {
        if (ShortCircuitPreload.refusal(e)) {
          noDirect.add(file.getParent());
        }
        return null;
      }
      direct = new DirectFile(channel, residencyKnown(path));
      directSegments.put(path, direct);
      if (directSegments.size() > OPEN_SEGMENTS) {
        Iterator<DirectFile> eldest = directSegments.values().iterator();
        closeQuietly(eldest.next().channel());
        eldest.remove();
      }
    }
    return direct;
  }

  /**
   * Whether the kernel tells this process truly which pages of segment file {@code path} the page cache holds: since
   * Linux 5.0 mincore does so only to whom may write the file (or owns it); to others it calls every page resident.
   * Asked of the file system once per directory (a DataNode's files share their owner and mode).
   */
  synchronized boolean residencyKnown(String path) {
    Path file = Path.of(path);
    return residencyKnown.computeIfAbsent(file.getParent(), dir -> Files.isWritable(file));
  }

  /**
   * A segment file opened with O_DIRECT, and whether mincore answers truly for it (where it does not, every page is
   * read around the page cache).
   */
  record DirectFile(FileChannel channel, boolean residencyKnown) {
    /**
     * Whether the page cache holds every page of bytes [position, position + length) of the file, through
     * {@code buffered} (the same file opened for buffered reads); false when the kernel will not say, or the range
     * cannot be mapped to ask it (the read that follows finds out whether the file is still readable).
     */
    boolean cached(FileChannel buffered, long position, long length) {
      try {
        return residencyKnown && PageCache.resident(buffered, position, length);
      } catch (IOException | RuntimeException e) {
        return false;
      }
    }
  }

  /** The file system of segment file {@code path} refused an O_DIRECT read: its directory is read buffered from now. */
  synchronized void refuseDirect(String path) {
    noDirect.add(Path.of(path).getParent());
    DirectFile direct = directSegments.remove(path);
    if (direct != null) {
      closeQuietly(direct.channel());
    }
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
    DirectFile direct = directSegments.remove(path);
    if (direct != null) {
      closeQuietly(direct.channel());
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
    directSegments.values().forEach(direct -> closeQuietly(direct.channel()));
    directSegments.clear();
    epochs.clear();
    arenaFiles.clear();
  }
}
