package io.fffs.datanode.store.arena;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;

/**
 * The arena's eviction frontier in a small shared file, {@code <memory dir>/arena.epoch}, for short-circuit readers
 * in other processes: bytes 0..7 are this arena's instance (random per start, so a reader of a restarted DataNode's
 * new files notices), bytes 8..15 the sequence number below which every page has been evicted (little-endian u64s).
 * The frontier is published before an evicted slot is handed to a writer, so a reader that copied a page and then
 * finds the frontier still at or below the page's sequence number copied bytes no writer had touched since.
 */
public final class ArenaEpoch {
  static final String FILE_NAME = "arena.epoch";
  private static final int BYTES = 16;
  private static final int INSTANCE_AT = 0;
  private static final int FRONTIER_AT = 8;
  private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class,
      ByteOrder.LITTLE_ENDIAN);

  private final Path path;
  private final long instance;
  private final MappedByteBuffer map;

  ArenaEpoch(Path dir) throws IOException {
    this.path = dir.resolve(FILE_NAME);
    Files.deleteIfExists(path);
    long id;
    do {
      id = new SecureRandom().nextLong();
    } while (id == 0);
    this.instance = id;
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      this.map = channel.map(FileChannel.MapMode.READ_WRITE, 0, BYTES);
    }
    LONGS.setVolatile(map, FRONTIER_AT, 0L);
    LONGS.setVolatile(map, INSTANCE_AT, instance);
  }

  public Path path() {
    return path;
  }

  public long instance() {
    return instance;
  }

  /**
   * Pages below {@code seq} are evicted. A volatile store: it is ordered before the writes a writer then makes into
   * the slots it frees.
   */
  void publish(long seq) {
    LONGS.setVolatile(map, FRONTIER_AT, seq);
  }

  void delete() {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // Best effort: the next start replaces it.
    }
  }
}
