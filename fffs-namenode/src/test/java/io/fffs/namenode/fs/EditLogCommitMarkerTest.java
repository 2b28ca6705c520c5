package io.fffs.namenode.fs;

import static io.fffs.namenode.fs.NamesystemFixture.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.edits.EditLog;
import io.fffs.namenode.edits.EditLogReader;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commit markers tell damage from a torn tail at every byte: any byte flipped before the last commit marker is
 * {@code CORRUPT} naming the file and the offset of the record or marker it hit (also in the last batch, which
 * without markers would be cut silently); a file cut anywhere in its last batch loses that batch only.
 */
class EditLogCommitMarkerTest {
  @TempDir
  Path dir;
  private Path scratch;
  private byte[] clean;
  /** Start offsets of every record and marker, in order, then the file's length. */
  private final List<Integer> units = new ArrayList<>();
  private int lastBatchStart;

  @BeforeEach
  void writeSegment() throws Exception {
    NamesystemFixture nn = new NamesystemFixture(dir.resolve("nn"), NamesystemFixture.conf());
    for (int i = 0; i < 4; i++) {
      nn.advance(10);
      nn.fs.directories.mkdirs(ADMIN, "/d" + i, 0755, false).await();
    }
    nn.close();
    List<Path> segments = EditLog.segments(dir.resolve("nn").resolve("current"));
    clean = Files.readAllBytes(segments.get(segments.size() - 1));
    scratch = dir.resolve("edits_scratch");
    ByteBuffer in = ByteBuffer.wrap(clean);
    int offset = 20;
    int lastMarker = -1;
    while (offset < clean.length) {
      units.add(offset);
      int length = in.getInt(offset);
      if (length == -1) {
        lastBatchStart = lastMarker < 0 ? 20 : lastMarker + 24;
        lastMarker = offset;
        offset += 24;
      } else {
        offset += 24 + length;
      }
    }
    units.add(clean.length);
    assertThat(lastMarker).isEqualTo(clean.length - 24);
    assertThat(units.size()).isGreaterThan(8);  // at least four batches of a record and a marker each
  }

  private long read(byte[] bytes, boolean newest) throws Exception {
    Files.write(scratch, bytes);
    return EditLogReader.read(scratch, newest, record -> { });
  }

  private int unitOf(int offset) {
    int unit = units.get(0);
    for (int start : units) {
      if (start > offset) {
        break;
      }
      unit = start;
    }
    return unit;
  }

  @Test
  void everyFlippedByteBeforeTheLastMarkerIsDamageNamingItsRecord() throws Exception {
    int lastMarker = clean.length - 24;
    for (int at = 20; at < lastMarker; at++) {
      byte[] damaged = clean.clone();
      damaged[at] ^= 0x41;
      int unit = unitOf(at);
      for (boolean newest : new boolean[] {true, false}) {
        assertThatThrownBy(() -> read(damaged, newest)).as("byte %d flipped", at)
            .isInstanceOfSatisfying(FffsException.class, e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT);
              assertThat(e.detail()).contains(scratch.toString()).contains("offset " + unit);
            });
      }
    }
  }

  @Test
  void aCutAnywhereInTheLastBatchIsATornTailThatLosesOnlyThatBatch() throws Exception {
    assertThat(read(clean, true)).isEqualTo(clean.length);
    for (int end = lastBatchStart; end < clean.length; end++) {
      byte[] torn = Arrays.copyOf(clean, end);
      assertThat(read(torn, true)).as("cut at %d", end).isEqualTo(lastBatchStart);
      // Followed by the writer's preallocated zeros, or by garbage that never made it whole.
      byte[] zeros = Arrays.copyOf(torn, clean.length + 4096);
      assertThat(read(zeros, true)).as("cut at %d, zeros after", end).isEqualTo(lastBatchStart);
      int cut = end;
      if (end > lastBatchStart) {  // a segment that was closed ends at a marker
        assertThatThrownBy(() -> read(torn, false)).as("cut at %d, closed segment", cut)
            .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT));
      }
    }
    // A damaged last marker cannot be told from one torn: its batch is cut, as an unacknowledged one.
    byte[] lastMarkerHit = clean.clone();
    lastMarkerHit[clean.length - 10] ^= 0x41;
    assertThat(read(lastMarkerHit, true)).isEqualTo(lastBatchStart);
  }

  @Test
  void aNameNodeStartsAfterATornBatchWithEveryCommittedChange() throws Exception {
    Path current = dir.resolve("nn").resolve("current");
    List<Path> segments = EditLog.segments(current);
    Path newest = segments.get(segments.size() - 1);
    Files.write(newest, Arrays.copyOf(clean, clean.length - 5));  // the last batch (mkdirs /d3) torn
    NamesystemFixture nn = new NamesystemFixture(dir.resolve("nn"), NamesystemFixture.conf());
    try {
      for (int i = 0; i < 3; i++) {
        assertThat(nn.fs.queries.getFileInfo(ADMIN, "/d" + i, TimeSpec.latest())).isNotNull();
      }
      assertThat(nn.fs.queries.getFileInfo(ADMIN, "/d3", TimeSpec.latest())).isNull();
      assertThat(Files.size(newest)).isEqualTo(lastBatchStart);
    } finally {
      nn.close();
    }
  }
}
