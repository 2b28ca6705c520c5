package io.fffs.datanode.store.persist;

import com.sun.nio.file.ExtendedOpenOption;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether segment files are written with {@code O_DIRECT} ({@code fffs.datanode.persistence.direct-io}), and the
 * start-up probe that decides it. Writing around the page cache saves the persistence thread the copy into fresh
 * page-cache pages and the kernel its writeback and reclaim of them — the CPU that, on a small machine, the writers
 * would otherwise lose. Some file systems refuse {@code O_DIRECT} (older tmpfs, some FUSE and network file systems):
 * the probe writes one aligned block to a scratch file in the data directory and, in {@link Mode#AUTO}, falls back
 * to the page cache when that fails.
 */
public final class DirectIo {
  private static final Logger LOG = LoggerFactory.getLogger(DirectIo.class);
  /** The smallest alignment used: one memory page, so a batch never shares a page-cache page with the next. */
  static final int MIN_ALIGNMENT = 4096;
  /** Larger file-system block sizes would pad every batch too much; such file systems get the page cache. */
  static final int MAX_ALIGNMENT = 64 * 1024;
  private static final String PROBE_FILE = ".direct-io-probe";

  /** The configured choice. */
  public enum Mode {
    /** O_DIRECT where the data directory's file system takes it, else the page cache (logged once). */
    AUTO,
    /** O_DIRECT or refuse to start. */
    TRUE,
    /** Always the page cache. */
    FALSE;

    /** Parses {@code auto}, {@code true} or {@code false} (any case). */
    public static Mode parse(String key, String value) {
      try {
        return valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(key + " must be auto, true or false, got " + value, e);
      }
    }
  }

  private DirectIo() {}

  /**
   * The alignment to write {@code dataDir}'s segment files with, or 0 for the page cache.
   *
   * @throws FffsException {@code INVALID_ARGUMENT} when {@code mode} is {@link Mode#TRUE} and the file system
   *     refuses O_DIRECT
   */
  public static int choose(Mode mode, Path dataDir, String key) throws FffsException {
    if (mode == Mode.FALSE) {
      return 0;
    }
    String refusal;
    try {
      int alignment = alignmentOf(dataDir);
      probe(dataDir, alignment);
      return alignment;
    } catch (IOException | UnsupportedOperationException e) {
      refusal = e.getMessage() == null ? e.toString() : e.getMessage();
    }
    if (mode == Mode.TRUE) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "the file system of " + dataDir + " refuses O_DIRECT ("
          + refusal + "), but " + key + " is true; set it to auto or false, or put the data directory on a file"
          + " system that takes O_DIRECT (ext4, xfs)");
    }
    LOG.info("Segment files in {} are written through the page cache: O_DIRECT is refused there ({})", dataDir,
        refusal);
    return 0;
  }

  /** The file system's block size, raised to a memory page; refused when too large or not a power of two. */
  static int alignmentOf(Path dataDir) throws IOException {
    long blockSize = Files.getFileStore(dataDir).getBlockSize();
    if (blockSize <= 0 || Long.bitCount(blockSize) != 1 || blockSize > MAX_ALIGNMENT) {
      throw new IOException("block size " + blockSize + " is not a power of two up to " + MAX_ALIGNMENT);
    }
    return (int) Math.max(blockSize, MIN_ALIGNMENT);
  }

  /** Writes and reads back one aligned block with O_DIRECT; throws what the file system says when it refuses. */
  private static void probe(Path dataDir, int alignment) throws IOException {
    Path file = dataDir.resolve(PROBE_FILE);
    Files.deleteIfExists(file);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
        StandardOpenOption.READ, ExtendedOpenOption.DIRECT)) {
      ByteBuffer block = alignedBuffer(alignment, alignment);
      block.put(0, (byte) 1);
      if (channel.write(block, 0) != alignment) {
        throw new IOException("a short O_DIRECT write");
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  /** A direct buffer of {@code capacity} bytes whose address is a multiple of {@code alignment}. */
  static ByteBuffer alignedBuffer(int capacity, int alignment) {
    return ByteBuffer.allocateDirect(capacity + alignment).alignedSlice(alignment).limit(capacity).slice();
  }
}
