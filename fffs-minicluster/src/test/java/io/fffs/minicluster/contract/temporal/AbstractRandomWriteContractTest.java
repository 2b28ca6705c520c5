package io.fffs.minicluster.contract.temporal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

/**
 * Writes in place: an existing file opened for writing, the write position moved inside it, new bytes written
 * over old ones, inside a block and across a block boundary; a write that would start beyond the end of the file
 * refused ({@code WRITE_BEYOND_EOF}). The old bytes stay readable at earlier times. The {@code FileSystem} API
 * has no positioned writes, so a subclass says how to open a file for writing and how to move the position.
 */
public abstract class AbstractRandomWriteContractTest extends AbstractTemporalContractTestBase {
  /** The block size the suite's files are created with; writes are placed around its multiples. */
  protected static final int BLOCK_SIZE = 64 * 1024;

  protected AbstractRandomWriteContractTest(FileSystemSource source) {
    super(source);
  }

  /** Opens the existing {@code file} for writing at position 0, keeping its content. */
  protected abstract FSDataOutputStream openForWrite(Path file) throws IOException;

  /** Moves the write position of {@code out} (from {@link #openForWrite}) to {@code position}. */
  protected abstract void seek(FSDataOutputStream out, long position) throws IOException;

  private Path createWithBlocks(String name, byte[] data) throws IOException {
    Path file = new Path(dir, name);
    try (FSDataOutputStream out = fs.create(file, true, 4096, fs.getDefaultReplication(file), BLOCK_SIZE)) {
      out.write(data);
    }
    return file;
  }

  private static byte[] pattern(int length, int seed) {
    byte[] data = new byte[length];
    for (int i = 0; i < length; i++) {
      data[i] = (byte) (i * 31 + seed + i / 251);
    }
    return data;
  }

  /** Writes {@code data} at {@code position} in {@code model}, growing it if the write runs past its end. */
  private static byte[] apply(byte[] model, long position, byte[] data) {
    byte[] result = Arrays.copyOf(model, (int) Math.max(model.length, position + data.length));
    System.arraycopy(data, 0, result, (int) position, data.length);
    return result;
  }

  private void writeAt(Path file, long position, byte[] data) throws IOException {
    try (FSDataOutputStream out = openForWrite(file)) {
      seek(out, position);
      out.write(data);
    }
  }

  @Test
  void seekAndWriteInsideTheFile() throws Exception {
    byte[] original = pattern(10_000, 1);
    Path file = createWithBlocks("inside", original);
    long before = momentBetweenChanges();
    byte[] patch = pattern(300, 99);
    writeAt(file, 1234, patch);
    byte[] expected = apply(original, 1234, patch);

    assertThat(read(file)).isEqualTo(expected);
    assertThat(fs.getFileStatus(file).getLen()).isEqualTo(original.length);
    assertThat(read(at(file, before))).isEqualTo(original);
  }

  @Test
  void severalWritesInOneOpenStream() throws Exception {
    byte[] model = pattern(5_000, 2);
    Path file = createWithBlocks("several", model);
    try (FSDataOutputStream out = openForWrite(file)) {
      for (int position : new int[] {4_000, 10, 2_500, 0}) {
        byte[] patch = pattern(100, position);
        seek(out, position);
        out.write(patch);
        model = apply(model, position, patch);
      }
    }
    assertThat(read(file)).isEqualTo(model);
  }

  @Test
  void writesAcrossBlockBoundaries() throws Exception {
    byte[] original = pattern(3 * BLOCK_SIZE + 5_000, 3);
    Path file = createWithBlocks("blocks", original);
    long t0 = momentBetweenChanges();
    byte[] first = pattern(10_000, 4);
    writeAt(file, BLOCK_SIZE - 4_000, first);
    byte[] afterFirst = apply(original, BLOCK_SIZE - 4_000, first);
    long t1 = momentBetweenChanges();
    // Spans two boundaries at once: the end of block 1, all of block 2's start, into block 3.
    byte[] second = pattern(BLOCK_SIZE + 2_000, 5);
    writeAt(file, 2L * BLOCK_SIZE - 1_000, second);
    byte[] afterSecond = apply(afterFirst, 2L * BLOCK_SIZE - 1_000, second);

    assertThat(read(file)).isEqualTo(afterSecond);
    assertThat(read(at(file, t0))).isEqualTo(original);
    assertThat(read(at(file, t1))).isEqualTo(afterFirst);
    assertThat(fs.getFileStatus(file).getLen()).isEqualTo(original.length);
    assertThat(fs.getFileBlockLocations(fs.getFileStatus(file), 0, original.length)).hasSize(4);
  }

  @Test
  void writeThatRunsPastTheEndGrowsTheFile() throws Exception {
    byte[] original = pattern(BLOCK_SIZE - 100, 6);
    Path file = createWithBlocks("grow", original);
    long before = momentBetweenChanges();
    byte[] patch = pattern(1_000, 7);
    writeAt(file, original.length - 200, patch);
    byte[] expected = apply(original, original.length - 200, patch);

    assertThat(read(file)).isEqualTo(expected);
    assertThat(fs.getFileStatus(file).getLen()).isEqualTo(expected.length);
    assertThat(fs.getFileStatus(at(file, before)).getLen()).isEqualTo(original.length);
    assertThat(read(at(file, before))).isEqualTo(original);
  }

  @Test
  void seekToTheEndAppends() throws Exception {
    byte[] original = pattern(BLOCK_SIZE, 8);
    Path file = createWithBlocks("end", original);
    byte[] tail = pattern(500, 9);
    writeAt(file, original.length, tail);
    assertThat(read(file)).isEqualTo(apply(original, original.length, tail));
  }

  @Test
  void writeBeyondTheEndIsRefused() throws Exception {
    byte[] original = pattern(1_000, 10);
    Path file = createWithBlocks("beyond", original);
    assertCode("WRITE_BEYOND_EOF", () -> {
      try (FSDataOutputStream out = openForWrite(file)) {
        seek(out, original.length + 1);
        out.write(1);
      }
    });
    assertCode("WRITE_BEYOND_EOF", () -> {
      try (FSDataOutputStream out = openForWrite(file)) {
        seek(out, 10L * BLOCK_SIZE);
        out.write(1);
      }
    });
    assertThat(read(file)).isEqualTo(original);
  }
}
