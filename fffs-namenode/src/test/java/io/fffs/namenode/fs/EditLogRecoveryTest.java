package io.fffs.namenode.fs;

import static io.fffs.namenode.fs.NamesystemFixture.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.edits.EditLog;
import io.fffs.namenode.edits.EditLogReader;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EditLogRecoveryTest {
  @TempDir
  Path dir;

  private Path newestSegment() throws Exception {
    List<Path> segments = EditLog.segments(dir.resolve("current"));
    return segments.get(segments.size() - 1);
  }

  private NamesystemFixture withDirectories(int count) throws Exception {
    NamesystemFixture nn = new NamesystemFixture(dir, NamesystemFixture.conf());
    for (int i = 0; i < count; i++) {
      nn.advance(10);
      nn.fs.directories.mkdirs(ADMIN, "/d" + i, 0755, false).await();
    }
    return nn;
  }

  /** The five directories survived, and the log takes changes again that survive a restart. */
  private static void assertKeptAndWritable(NamesystemFixture nn) throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(nn.fs.queries.getFileInfo(ADMIN, "/d" + i, TimeSpec.latest())).isNotNull();
    }
    nn.fs.directories.mkdirs(ADMIN, "/after", 0755, false).await();
    nn.restart();
    assertThat(nn.fs.queries.getFileInfo(ADMIN, "/after", TimeSpec.latest())).isNotNull();
    nn.close();
  }

  @Test
  void tornLastRecordIsCutAndEverythingBeforeSurvives() throws Exception {
    NamesystemFixture nn = withDirectories(5);
    nn.fs.close();
    Path segment = newestSegment();
    long goodLength = Files.size(segment);
    // A record whose header promises more bytes than made it to disk: a crash mid-write.
    Files.write(segment, new byte[] {0, 0, 0, 40, 1, 2, 3, 4, 0, 0, 0}, StandardOpenOption.APPEND);

    nn.start();
    assertThat(Files.size(segment)).isEqualTo(goodLength);
    assertKeptAndWritable(nn);
  }

  @Test
  void openSegmentIsPreallocatedAndCutToItsRecordsOnClose() throws Exception {
    NamesystemFixture nn = withDirectories(5);
    Path segment = newestSegment();
    assertThat(Files.size(segment)).isGreaterThanOrEqualTo(1 << 20);
    long recordsEnd = EditLogReader.read(segment, true, record -> { });
    assertThat(recordsEnd).isLessThan(4096);
    nn.fs.close();
    assertThat(Files.size(segment)).isEqualTo(recordsEnd);
  }

  /** The name directory as a crash leaves it: copied while the NameNode runs, preallocated zeros and all. */
  private Path crashedCopy() throws Exception {
    Path copy = dir.resolveSibling(dir.getFileName() + "-crashed");
    try (var files = Files.walk(dir)) {
      for (Path from : (Iterable<Path>) files::iterator) {
        Files.copy(from, copy.resolve(dir.relativize(from).toString()));
      }
    }
    return copy;
  }

  @Test
  void afterACrashThePreallocatedZerosEndTheLogAndAreCut() throws Exception {
    NamesystemFixture nn = withDirectories(5);
    Path copy = crashedCopy();
    nn.close();
    Path segment = EditLog.segments(copy.resolve("current")).get(0);
    assertThat(Files.size(segment)).isGreaterThanOrEqualTo(1 << 20);

    NamesystemFixture recovered = new NamesystemFixture(copy, NamesystemFixture.conf());
    for (int i = 0; i < 5; i++) {
      assertThat(recovered.fs.queries.getFileInfo(ADMIN, "/d" + i, TimeSpec.latest())).isNotNull();
    }
    assertThat(Files.size(segment)).isLessThan(4096);
    recovered.close();
  }

  @Test
  void aRecordTornInsideThePreallocatedSpaceIsCut() throws Exception {
    NamesystemFixture nn = withDirectories(5);
    Path copy = crashedCopy();
    nn.close();
    Path segment = EditLog.segments(copy.resolve("current")).get(0);
    long recordsEnd = EditLogReader.read(segment, true, record -> { });
    try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw")) {
      file.seek(recordsEnd);  // a header promising 40 bytes and a CRC, then the crash: zeros follow
      file.write(new byte[] {0, 0, 0, 40, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 6});
    }
    assertThat(EditLogReader.read(segment, true, record -> { })).isEqualTo(recordsEnd);
    assertThatThrownBy(() -> EditLogReader.read(segment, false, record -> { }))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT));

    NamesystemFixture recovered = new NamesystemFixture(copy, NamesystemFixture.conf());
    assertThat(recovered.fs.queries.getFileInfo(ADMIN, "/d4", TimeSpec.latest())).isNotNull();
    assertThat(Files.size(segment)).isEqualTo(recordsEnd);
    recovered.close();
  }

  @Test
  void aSegmentStartedButWhoseHeaderNeverReachedTheDiskHoldsNothing() throws Exception {
    NamesystemFixture nn = withDirectories(5);
    nn.fs.close();
    long[] last = {0};
    EditLogReader.read(newestSegment(), true, record -> last[0] = record.txid());
    // A roll cut short by a power loss: the new segment truncated and preallocated, its header not yet synced.
    Path started = dir.resolve("current").resolve(String.format("edits_%020d", last[0] + 1));
    Files.write(started, new byte[1 << 20]);
    assertThatThrownBy(() -> EditLogReader.read(started, false, record -> { }))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT));

    nn.start();
    assertKeptAndWritable(nn);
  }

  @Test
  void damageInTheMiddleStopsStartUpNamingFileAndOffset() throws Exception {
    NamesystemFixture nn = withDirectories(5);
    nn.fs.close();
    Path segment = newestSegment();
    long offsetOfSecondRecord;
    try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw")) {
      file.seek(20);
      int firstBody = file.readInt();
      offsetOfSecondRecord = 20 + 24 + firstBody + 24;  // after the first record and its batch's commit marker
      file.seek(offsetOfSecondRecord + 30);
      int b = file.read();
      file.seek(offsetOfSecondRecord + 30);
      file.write(b ^ 0x5a);
    }
    assertThatThrownBy(nn::start).isInstanceOfSatisfying(FffsException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT);
      assertThat(e.detail()).contains(segment.toString()).contains("offset " + offsetOfSecondRecord)
          .contains("fails its CRC32C");
    });
  }

  @Test
  void damagedNewestImageFallsBackToTheOlderOneAndItsEdits() throws Exception {
    NamesystemFixture nn = withDirectories(3);
    Path image = nn.fs.checkpoint();
    nn.advance(10);
    nn.fs.directories.mkdirs(ADMIN, "/late", 0755, false).await();
    nn.fs.close();
    try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
      file.seek(file.length() - 3);
      file.write(0x7f);
    }
    nn.start();
    for (String path : new String[] {"/d0", "/d1", "/d2", "/late"}) {
      assertThat(nn.fs.queries.getFileInfo(ADMIN, path, TimeSpec.latest())).as(path).isNotNull();
    }
    nn.close();
  }
}
