package io.fffs.datanode.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.history.RetentionTable;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A block that begins on a DataNode after it applied a retention table, with an id below that table's
 * {@code nextBlockId} (a re-replication copy, a pipeline's replacement, a block first written after the table was
 * made), survives a restart whole, while a block the table dropped stays dropped; the next table decides for both.
 */
class AdoptedBlocksTest {
  private static final long KEPT = 5;
  private static final long DROPPED = 6;
  private static final long ADOPTED = 7;

  @TempDir
  Path dataDir;
  StoreFixture fixture;

  @BeforeEach
  void open() throws Exception {
    fixture = new StoreFixture(dataDir).open();
  }

  @AfterEach
  void close() throws Exception {
    fixture.close();
  }

  @Test
  void aBlockTakenInAfterATableSurvivesARestartAndTheNextTableDecides() throws Exception {
    write(KEPT, 1);
    write(DROPPED, 2);
    fixture.store.applyRetention(table(1, KEPT));
    assertThat(exists(DROPPED)).as("dropped by the table").isFalse();

    byte[] adopted = write(ADOPTED, 3);  // below the table's nextBlockId, which does not list it
    assertThat(Files.size(dataDir.resolve("retention.adopted"))).as("header and one record").isEqualTo(24 + 16);
    fixture.restart();
    assertThat(read(ADOPTED)).as("the adopted block after a restart").isEqualTo(adopted);
    assertThat(read(KEPT)).isEqualTo(StoreFixture.array(StoreFixture.bytes(4000, 1)));
    assertThat(exists(DROPPED)).as("still dropped after the restart").isFalse();

    // A newer table that lists it keeps it as it says; one that does not drops it, for good.
    fixture.store.applyRetention(table(2, KEPT, ADOPTED));
    fixture.restart();
    assertThat(read(ADOPTED)).isEqualTo(adopted);
    fixture.store.applyRetention(table(3, KEPT));
    assertThat(exists(ADOPTED)).isFalse();
    fixture.restart();
    assertThat(exists(ADOPTED)).as("dropped by a newer table, also after a restart").isFalse();
    assertThat(read(KEPT)).isEqualTo(StoreFixture.array(StoreFixture.bytes(4000, 1)));
  }

  /** A data directory whose retention state was written before the adopted-blocks list existed. */
  @Test
  void aDataDirectoryWithoutTheListGetsOneAtStartUp() throws Exception {
    write(KEPT, 1);
    fixture.store.applyRetention(table(1, KEPT));
    fixture.store.close();
    Files.delete(dataDir.resolve("retention.adopted"));
    fixture.open();
    byte[] adopted = write(ADOPTED, 3);
    fixture.restart();
    assertThat(read(ADOPTED)).isEqualTo(adopted);
  }

  @Test
  void aTornLastRecordIsIgnoredAndADamagedEarlierOneIsReported() throws Exception {
    write(KEPT, 1);
    fixture.store.applyRetention(table(1, KEPT));
    write(ADOPTED, 3);
    write(ADOPTED + 1, 4);
    Path file = dataDir.resolve("retention.adopted");
    byte[] bytes = Files.readAllBytes(file);
    fixture.store.close();

    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 5));  // the second record torn
    fixture.open();
    assertThat(exists(ADOPTED)).as("its record whole").isTrue();
    assertThat(exists(ADOPTED + 1)).as("its record torn: its first change was never answered").isFalse();
    fixture.store.close();

    bytes[24 + 3] ^= 0x40;  // the first record's block id
    Files.write(file, bytes);
    assertOpenReportsDamage("fails its CRC32C");
  }

  /** Blocks adopted after a restart that found a torn record are recorded whole, not behind the torn bytes. */
  @Test
  void adoptionsAfterATornRecordCountAtTheNextRestart() throws Exception {
    write(KEPT, 1);
    fixture.store.applyRetention(table(1, KEPT));
    write(ADOPTED, 3);
    Path file = dataDir.resolve("retention.adopted");
    fixture.store.close();
    Files.write(file, new byte[] {1, 2, 3, 4, 5}, java.nio.file.StandardOpenOption.APPEND);  // a torn append
    fixture.open();
    byte[] second = write(ADOPTED + 1, 4);
    byte[] third = write(ADOPTED + 2, 5);
    fixture.restart();
    assertThat(exists(ADOPTED)).isTrue();
    assertThat(read(ADOPTED + 1)).isEqualTo(second);
    assertThat(read(ADOPTED + 2)).isEqualTo(third);
  }

  /**
   * A crash between a table's retention state and its adopted-blocks list leaves the older table's list: its records
   * no longer count, and blocks adopted after the restart go to a list of the new table.
   */
  @Test
  void aListOfAnOlderTableIsReplacedAtStartUp() throws Exception {
    write(KEPT, 1);
    fixture.store.applyRetention(table(1, KEPT));
    write(ADOPTED, 3);
    Path file = dataDir.resolve("retention.adopted");
    byte[] older = Files.readAllBytes(file);
    fixture.store.applyRetention(table(2, KEPT, ADOPTED));
    fixture.store.close();
    Files.write(file, older);  // as if the crash came before the new list was written
    fixture.open();
    assertThat(exists(ADOPTED)).as("listed by table 2").isTrue();
    byte[] later = write(ADOPTED + 1, 4);
    fixture.restart();
    assertThat(read(ADOPTED + 1)).isEqualTo(later);
  }

  /** A block whose record could not be written is recorded at its next change; the first one was refused. */
  @Test
  void aBlockWhoseRecordFailedIsRecordedAtItsNextChange() throws Exception {
    write(KEPT, 1);
    fixture.store.applyRetention(table(1, KEPT));
    Path file = dataDir.resolve("retention.adopted");
    Files.delete(file);
    Files.createDirectories(file.resolve("in-the-way"));  // appends and the rewrite both fail now
    assertThatThrownBy(() -> write(ADOPTED, 3)).isInstanceOfSatisfying(FffsException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR)).hasMessageContaining("retention.adopted");
    Files.delete(file.resolve("in-the-way"));
    Files.delete(file);
    byte[] adopted = write(ADOPTED, 3);
    fixture.restart();
    assertThat(read(ADOPTED)).isEqualTo(adopted);
    assertThat(Files.size(file)).as("the restart's list: header and one record").isEqualTo(24 + 16);
  }

  /** A block the state lists is not recorded again at its first change after a restart. */
  @Test
  void aListedBlockIsNotRecordedAgain() throws Exception {
    write(KEPT, 1);
    fixture.store.applyRetention(table(1, KEPT));
    fixture.restart();
    write(KEPT, 2);
    assertThat(Files.size(dataDir.resolve("retention.adopted"))).as("the header alone").isEqualTo(24);
  }

  /** A list written by the first version (12-byte records, no kept moments) is read, then rewritten in this one. */
  @Test
  void aListOfTheFirstVersionIsRead() throws Exception {
    write(KEPT, 1);
    fixture.store.applyRetention(table(1, KEPT));
    byte[] adopted = write(ADOPTED, 3);
    fixture.store.close();
    ByteBuffer v1 = ByteBuffer.allocate(24 + 12).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    v1.putLong(0x3150444153464646L).putInt(1).putLong(1);
    v1.putInt(crc(v1.array(), 0, 20)).putLong(ADOPTED).putInt(crc(v1.array(), 24, 8));
    Path file = dataDir.resolve("retention.adopted");
    Files.write(file, v1.array());
    fixture.open();
    assertThat(read(ADOPTED)).isEqualTo(adopted);
    assertThat(Files.size(file)).as("rewritten: header and one record").isEqualTo(24 + 16);
  }

  /** Zeros after the last record (appended space a crash left unwritten) end the list; damaged kept moments do not. */
  @Test
  void aTailOfZerosIsIgnoredAndDamagedKeptMomentsAreReported() throws Exception {
    write(KEPT, 1);
    fixture.store.applyRetention(table(1, KEPT));
    fixture.store.openReplica(ADOPTED, ReplicaRole.FOLLOWER, 0, MomentSet.from(StoreFixture.START_MICROS));
    byte[] adopted = write(ADOPTED + 1, 3);
    Path file = dataDir.resolve("retention.adopted");
    fixture.store.close();
    byte[] bytes = Files.readAllBytes(file);
    assertThat(bytes.length).as("a copy's record with two bounds, then a whole block's").isEqualTo(24 + 36 + 16);
    Files.write(file, new byte[64], java.nio.file.StandardOpenOption.APPEND);
    fixture.open();
    assertThat(read(ADOPTED + 1)).isEqualTo(adopted);
    fixture.store.close();

    bytes[24 + 16 + 2] ^= 0x10;  // a bound of the copy's kept moments
    Files.write(file, bytes);
    assertOpenReportsDamage("kept moments");
  }

  /** A copy's record of many kept moments torn as the file system may leave it: its length there, all zeros. */
  @Test
  void aLongRecordLeftAsZerosIsATornAppend() throws Exception {
    write(KEPT, 1);
    fixture.store.applyRetention(table(1, KEPT));
    byte[] adopted = write(ADOPTED, 3);
    Path file = dataDir.resolve("retention.adopted");
    long whole = Files.size(file);
    MomentSet.Builder many = new MomentSet.Builder();
    for (int i = 0; i < 700; i++) {
      many.add(StoreFixture.START_MICROS + 10L * i, StoreFixture.START_MICROS + 10L * i + 1);
    }
    fixture.store.openReplica(ADOPTED + 1, ReplicaRole.FOLLOWER, 0, many.build());
    long torn = Files.size(file) - whole;
    assertThat(torn).as("the copy's record").isGreaterThan(8192);
    fixture.store.close();
    byte[] bytes = Files.readAllBytes(file);
    java.util.Arrays.fill(bytes, (int) whole, bytes.length, (byte) 0);
    Files.write(file, bytes);
    fixture.open();
    assertThat(read(ADOPTED)).isEqualTo(adopted);
  }

  /** The store refuses to open: the list is damaged ({@code CORRUPT}), as {@code what} says. */
  private void assertOpenReportsDamage(String what) {
    assertThatThrownBy(fixture::open).isInstanceOfSatisfying(FffsException.class,
        e -> assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT)).hasMessageContaining("retention.adopted")
        .hasMessageContaining(what);
    fixture.store = null;
  }

  private static int crc(byte[] bytes, int offset, int length) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }

  private byte[] write(long blockId, int seed) throws Exception {
    ByteBuffer data = StoreFixture.bytes(4000, seed);
    byte[] bytes = StoreFixture.array(data);
    fixture.store.write(blockId, 0, data, WriteOptions.defaults());
    fixture.store.sync(List.of(blockId));
    return bytes;
  }

  private boolean exists(long blockId) throws Exception {
    try {
      read(blockId);
      return true;
    } catch (FffsException e) {
      assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
      return false;
    }
  }

  private byte[] read(long blockId) throws Exception {
    try (ReadView view = fixture.store.read(blockId, 0, 4000, TimeSpec.latest())) {
      byte[] out = new byte[view.length()];
      view.copyTo(ByteBuffer.wrap(out));
      return out;
    }
  }

  private static RetentionTable table(long generation, long... keep) {
    TreeMap<Long, MomentSet> kept = new TreeMap<>();
    for (long id : keep) {
      kept.put(id, MomentSet.ALL);
    }
    return new RetentionTable(generation, 1_000, java.util.Collections.unmodifiableNavigableMap(kept));
  }
}
