package io.fffs.minicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FileVersion;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.errors.CodedException;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.usertime.FixedRecordUserTimeExtractor;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fffs:// client against a real NameNode and DataNode over loopback: reads of the past, in place writes. */
class EndToEndTest {
  @TempDir
  static Path base;
  static MiniFffsCluster cluster;
  static FreezeFrameFileSystem fs;

  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", 1 << 20);
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(1).build();
    fs = cluster.getFileSystem();
  }

  @AfterAll
  static void stop() throws Exception {
    if (fs != null) {
      fs.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  static byte[] read(FileSystem fs, org.apache.hadoop.fs.Path path) throws IOException {
    try (InputStream in = fs.open(path)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }
  }

  static void write(FileSystem fs, org.apache.hadoop.fs.Path path, String text) throws IOException {
    try (FSDataOutputStream out = fs.create(path, true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** A system time strictly after everything done so far, and before anything done next. */
  static long pastMoment() throws IOException {
    HlcTimestamp now = fs.currentTime();
    while (PhysicalClock.system().currentTimeMicros() <= now.physicalMicros() + 1) {
      Thread.onSpinWait();
    }
    return now.physicalMicros();
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  @Test
  void overwrittenFileReadsAsItWasThroughMarkersAndTheJavaApi() throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/e2e/overwrite.txt");
    write(fs, file, "first version");
    long t1 = pastMoment();
    write(fs, file, "second, longer version");
    long t2 = pastMoment();

    assertThat(text(read(fs, file))).isEqualTo("second, longer version");
    assertThat(text(read(fs, new org.apache.hadoop.fs.Path(file + "@s" + TimeSpec.system(t1).toMarker()
        .substring(2))))).isEqualTo("first version");
    try (FSDataInputStream in = fs.open(file, TimeSpec.system(t1))) {
      byte[] buffer = new byte[64];
      int n = in.read(buffer);
      assertThat(text(Arrays.copyOf(buffer, n))).isEqualTo("first version");
    }
    FileStatus past = fs.getFileStatus(file, TimeSpec.system(t1));
    assertThat(past.getLen()).isEqualTo("first version".length());
    assertThat(past.getPath().toString()).endsWith(TimeSpec.system(t1).toMarker());
    assertThat(fs.getFileStatus(file, TimeSpec.system(t2)).getLen()).isEqualTo("second, longer version".length());
    // Asked again, the answer is the same.
    assertThat(text(read(fs, new org.apache.hadoop.fs.Path(file + TimeSpec.system(t1).toMarker()))))
        .isEqualTo("first version");
  }

  @Test
  void inPlaceWritesKeepThePast() throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/e2e/inplace.bin");
    write(fs, file, "aaaaaaaaaa");
    long before = pastMoment();
    try (FffsDataOutputStream out = fs.openForWrite(file)) {
      out.seek(3);
      out.write("BBB".getBytes(StandardCharsets.UTF_8));
      out.seek(10);
      out.write("cc".getBytes(StandardCharsets.UTF_8));
      assertThatThrownBy(() -> out.seek(20)).isInstanceOfSatisfying(FffsException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.WRITE_BEYOND_EOF));
    }
    assertThat(text(read(fs, file))).isEqualTo("aaaBBBaaaacc");
    try (FSDataInputStream in = fs.open(file, TimeSpec.system(before))) {
      assertThat(text(in.readAllBytes())).isEqualTo("aaaaaaaaaa");
    }
    List<FileVersion> versions = fs.listVersions(file);
    assertThat(versions).isNotEmpty();
    assertThat(versions.get(versions.size() - 1).length()).isEqualTo(12);
  }

  @Test
  void writesAcrossBlockBoundariesAndAppends() throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/e2e/blocks.bin");
    byte[] data = new byte[(3 << 20) + 12345];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i * 31 + i / 7);
    }
    try (FSDataOutputStream out = fs.create(file, true)) {
      out.write(data);
    }
    assertThat(read(fs, file)).isEqualTo(data);
    assertThat(fs.getFileBlockLocations(fs.getFileStatus(file), 0, data.length)).hasSize(4);
    long beforeAppend = pastMoment();
    try (FSDataOutputStream out = fs.append(file)) {
      out.write(new byte[] {1, 2, 3});
    }
    assertThat(fs.getFileStatus(file).getLen()).isEqualTo(data.length + 3);
    assertThat(fs.getFileStatus(file, TimeSpec.system(beforeAppend)).getLen()).isEqualTo(data.length);
    try (FSDataInputStream in = fs.open(file)) {
      byte[] tail = new byte[5];
      in.readFully(data.length - 2, tail);
      assertThat(tail).containsExactly(data[data.length - 2], data[data.length - 1], 1, 2, 3);
    }
  }

  /**
   * Write calls of every shape around the packet size: bytes left in the packet buffer, then calls that hold whole
   * packets (sent from the caller's array, not through the buffer) from unaligned offsets of a larger array, across
   * block ends; the caller reuses its array at once. The file holds every byte in order.
   */
  @Test
  void writeCallsOfEveryShapeAroundThePacketSizeLandInOrder() throws Exception {
    int packet = 4096;
    Configuration conf = cluster.getConfiguration();
    conf.setInt(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, packet);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/e2e/shapes.bin");
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    Random random = new Random(11);
    int[] sizes = {100, packet, 3 * packet + 17, 1, packet - 1, packet, 5 * packet, 500_000, packet + 1, 2 * packet};
    try (FileSystem client = FileSystem.newInstance(cluster.getURI(), conf);
        FSDataOutputStream out = client.create(file, true)) {
      byte[] array = new byte[600_000];
      for (int round = 0; round < 4; round++) {
        for (int size : sizes) {
          random.nextBytes(array);
          int offset = random.nextInt(array.length - size);
          out.write(array, offset, size);
          expected.write(array, offset, size);
        }
      }
    }
    assertThat(expected.size()).isGreaterThan(2 << 20);  // past two block ends (1 MiB blocks)
    assertThat(read(fs, file)).isEqualTo(expected.toByteArray());
  }

  @Test
  void truncateCutsTheFileAndItsBlockButNotThePast() throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/e2e/truncate.txt");
    write(fs, file, "0123456789abcdefghij");
    long before = pastMoment();
    assertThat(fs.truncate(file, 7)).isTrue();
    assertThat(text(read(fs, file))).isEqualTo("0123456");
    try (FSDataOutputStream out = fs.append(file)) {
      out.write("XY".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(text(read(fs, file))).isEqualTo("0123456XY");
    assertThat(text(read(fs, new org.apache.hadoop.fs.Path(file + TimeSpec.system(before).toMarker()))))
        .isEqualTo("0123456789abcdefghij");
    long cutBlocks = cluster.getDataNode(0).store().blockReport().stream()
        .filter(b -> b.length() == 9).count();
    assertThat(cutBlocks).as("the DataNode's block was cut and grew to 9 bytes").isPositive();
  }

  @Test
  void deletedAndRenamedFilesAndListingsOfThePast() throws Exception {
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/e2e/table");
    write(fs, new org.apache.hadoop.fs.Path(dir, "part-0"), "zero");
    write(fs, new org.apache.hadoop.fs.Path(dir, "part-1"), "one");
    long t = pastMoment();
    fs.delete(new org.apache.hadoop.fs.Path(dir, "part-0"), false);
    fs.rename(new org.apache.hadoop.fs.Path(dir, "part-1"), new org.apache.hadoop.fs.Path(dir, "renamed"));

    org.apache.hadoop.fs.Path pastDir = new org.apache.hadoop.fs.Path(dir + TimeSpec.system(t).toMarker());
    FileStatus[] past = fs.listStatus(pastDir);
    assertThat(Arrays.stream(past).map(s -> s.getPath().getName()).collect(Collectors.toList()))
        .containsExactly("part-0", "part-1");
    // Children keep the marker, so reading them reads the past without knowing about time.
    assertThat(past[0].getPath().toString()).contains(TimeSpec.system(t).toMarker() + "/part-0");
    assertThat(text(read(fs, past[0].getPath()))).isEqualTo("zero");
    assertThat(text(read(fs, past[1].getPath()))).isEqualTo("one");
    assertThat(Arrays.stream(fs.listStatus(dir)).map(s -> s.getPath().getName()).collect(Collectors.toList()))
        .containsExactly("renamed");
    assertThatThrownBy(() -> fs.getFileStatus(new org.apache.hadoop.fs.Path(dir, "part-0")))
        .isInstanceOf(FileNotFoundException.class);
  }

  @Test
  void typedErrorsWithClearMessages() throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/e2e/errors.txt");
    write(fs, file, "x");
    long t = pastMoment();
    org.apache.hadoop.fs.Path past = new org.apache.hadoop.fs.Path(file + TimeSpec.system(t).toMarker());
    assertThatThrownBy(() -> fs.create(past, true)).isInstanceOfSatisfying(FffsException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.READ_ONLY_PAST);
      assertThat(e.getMessage()).contains("read-only").contains("/e2e/errors.txt instead");
    });
    assertThatThrownBy(() -> fs.delete(past, false)).isInstanceOfSatisfying(FffsException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.READ_ONLY_PAST));
    long future = PhysicalClock.system().currentTimeMicros() + 60_000_000;
    assertThatThrownBy(() -> fs.open(file, TimeSpec.system(future))).isInstanceOfSatisfying(FffsException.class,
        e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.TIME_IN_FUTURE);
          assertThat(e.getMessage()).contains("ahead of the cluster clock");
        });
    assertThatThrownBy(() -> fs.open(new org.apache.hadoop.fs.Path("/e2e/x@s12x4")))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_TIME));
    assertThatThrownBy(() -> fs.create(file, false)).isInstanceOfSatisfying(IOException.class,
        e -> assertThat(((CodedException) e).code()).isEqualTo(ErrorCode.ALREADY_EXISTS));
  }

  @Test
  void userTimeFilesReadByUserTime() throws Exception {
    Configuration conf = cluster.getConfiguration();
    conf.set("fffs.usertime.plugin", FixedRecordUserTimeExtractor.NAME);
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/e2e/sensor.ts");
    try (FileSystem userFs = FileSystem.newInstance(cluster.getURI(), conf)) {
      try (FSDataOutputStream out = userFs.create(file, true)) {
        for (int i = 1; i <= 10; i++) {
          out.write(FixedRecordUserTimeExtractor.record(i * 1000L, (byte) i));
          out.hflush();
        }
        assertThatThrownBy(() -> {
          out.write(FixedRecordUserTimeExtractor.record(500L, (byte) 0));
          out.hflush();
        }).isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.USER_TIME_REGRESSION);
          assertThat(e.getMessage()).contains("500");
        });
      } catch (FffsException expectedOnClose) {
        assertThat(expectedOnClose.code()).isEqualTo(ErrorCode.USER_TIME_REGRESSION);
      }
    }
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(file + "@u5"))) {
      byte[] asOfUser = in.readAllBytes();
      assertThat(asOfUser).hasSize(5 * FixedRecordUserTimeExtractor.RECORD_LENGTH);
      assertThat(asOfUser[asOfUser.length - 1]).isEqualTo((byte) 5);
    }
  }

  @Test
  void fileContextWorksThroughTheAbstractFileSystemBinding() throws Exception {
    FileContext context = FileContext.getFileContext(cluster.getURI(), cluster.getConfiguration());
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/e2e/fc");
    context.mkdir(dir, null, true);
    assertThat(context.getFileStatus(dir).isDirectory()).isTrue();
  }
}
