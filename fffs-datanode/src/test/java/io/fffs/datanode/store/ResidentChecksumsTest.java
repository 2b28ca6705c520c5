package io.fffs.datanode.store;

import static io.fffs.datanode.store.StoreFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.time.TimeSpec;
import io.fffs.protocol.frame.ChunkChecksums;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A READ of arena pages sends the chunk CRCs the write that filled them carried (arena.SlotChecksums), not CRCs
 * computed from the bytes as they are now: the answer's CRCs are always those of what was written, so a page damaged
 * in memory since fails the reader's check; pages written in part, and reads off a chunk boundary, are computed.
 */
class ResidentChecksumsTest {
  private static final int PAGE = 4096;

  @TempDir
  Path dataDir;

  private StoreFixture fixture() throws Exception {
    StoreFixture fixture = new StoreFixture(dataDir);
    fixture.conf.setInt(DataNodeConfigKeys.PAGE_SIZE_KEY, PAGE);
    return fixture.open();
  }

  private static WriteOptions withCrcs(ByteBuffer data) {
    return WriteOptions.defaults().withChunkCrcs(ChunkChecksums.of(data.duplicate()));
  }

  @Test
  void aReadOfWholeWrittenPagesCarriesTheWritesCrcsAndTheyMatchTheBytes() throws Exception {
    try (StoreFixture fixture = fixture()) {
      ByteBuffer data = bytes(8 * PAGE, 1);
      fixture.store.write(1, 0, data.duplicate(), withCrcs(data));
      try (ReadView view = fixture.store.read(1, 0, 8 * PAGE, TimeSpec.latest())) {
        assertThat(view.runs()).allMatch(ReadView.Run::inMemory).allMatch(run -> run.chunkCrcs() != null);
        assertThat(view.chunkCrcs()).isEqualTo(ChunkChecksums.of(ByteBuffer.wrap(view.toBytes())));
      }
      // From inside a page, on a chunk boundary: the kept CRCs from that chunk on.
      try (ReadView view = fixture.store.read(1, 1536, 3 * PAGE, TimeSpec.latest())) {
        assertThat(view.runs().get(0).chunkCrcs()).isNotNull();
        assertThat(view.chunkCrcs()).isEqualTo(ChunkChecksums.of(ByteBuffer.wrap(view.toBytes())));
      }
      // Off a chunk boundary the answer's chunks do not line up with the pages': computed, and still right.
      try (ReadView view = fixture.store.read(1, 1000, 3 * PAGE, TimeSpec.latest())) {
        assertThat(view.chunkCrcs()).isEqualTo(ChunkChecksums.of(ByteBuffer.wrap(view.toBytes())));
      }
    }
  }

  @Test
  void aPageDamagedInMemoryAfterItsWriteFailsTheAnswersCrcs() throws Exception {
    try (StoreFixture fixture = fixture()) {
      ByteBuffer data = bytes(4 * PAGE, 2);
      fixture.store.write(1, 0, data.duplicate(), withCrcs(data));
      int[] asWritten = ChunkChecksums.of(data.duplicate());
      try (ReadView view = fixture.store.read(1, 0, 4 * PAGE, TimeSpec.latest())) {
        ReadView.Run run = view.runs().get(0);
        long at = run.position() + PAGE + 700;  // chunk 9 of the answer
        ByteBuffer one = ByteBuffer.allocate(1);
        run.channel().read(one, at);
        one.put(0, (byte) (one.get(0) ^ 0x10)).rewind();
        run.channel().write(one, at);

        int[] sent = view.chunkCrcs();
        int[] ofBytes = ChunkChecksums.of(ByteBuffer.wrap(view.toBytes()));
        assertThat(sent).isEqualTo(asWritten);
        assertThat(ofBytes[9]).isNotEqualTo(sent[9]);  // the reader's check of chunk 9 fails
      }
    }
  }

  @Test
  void pagesWrittenInPartOrWithoutCrcsAreComputed() throws Exception {
    try (StoreFixture fixture = fixture()) {
      ByteBuffer first = bytes(PAGE + 1000, 3);
      fixture.store.write(1, 0, first.duplicate(), withCrcs(first));
      ByteBuffer next = bytes(2 * PAGE, 4);  // completes page 1 and writes page 2 in part: both copied, then written
      fixture.store.write(1, PAGE + 1000, next.duplicate(), withCrcs(next));
      ByteBuffer bare = bytes(PAGE, 5);
      fixture.store.write(2, 0, bare, WriteOptions.defaults());
      try (ReadView view = fixture.store.read(1, 0, 3 * PAGE + 1000, TimeSpec.latest())) {
        assertThat(view.runs().get(0).chunkCrcs()).isNotNull();  // page 0, whole in the first write
        assertThat(view.runs()).anyMatch(run -> run.chunkCrcs() == null);
        assertThat(view.chunkCrcs()).isEqualTo(ChunkChecksums.of(ByteBuffer.wrap(view.toBytes())));
      }
      try (ReadView view = fixture.store.read(2, 0, PAGE, TimeSpec.latest())) {
        assertThat(view.runs()).allMatch(run -> run.chunkCrcs() == null);
        assertThat(view.chunkCrcs()).isEqualTo(ChunkChecksums.of(ByteBuffer.wrap(view.toBytes())));
      }
    }
  }

  @Test
  void aPastVersionStillInTheArenaKeepsItsOwnCrcs() throws Exception {
    try (StoreFixture fixture = fixture()) {
      ByteBuffer before = bytes(4 * PAGE, 6);
      fixture.store.write(1, 0, before.duplicate(), withCrcs(before));
      fixture.passTime();
      long then = fixture.physical.currentTimeMicros();
      fixture.physical.advance(1_000);
      ByteBuffer after = bytes(2 * PAGE, 7);
      fixture.store.write(1, PAGE, after.duplicate(), withCrcs(after));
      fixture.passTime();
      try (ReadView view = fixture.store.read(1, 0, 4 * PAGE, TimeSpec.system(then))) {
        assertThat(view.runs()).allMatch(run -> run.chunkCrcs() != null);
        assertThat(view.chunkCrcs()).isEqualTo(ChunkChecksums.of(before.duplicate()));
      }
      try (ReadView view = fixture.store.read(1, 0, 4 * PAGE, TimeSpec.latest())) {
        assertThat(view.chunkCrcs()).isEqualTo(ChunkChecksums.of(ByteBuffer.wrap(view.toBytes())));
        assertThat(view.toBytes()).isNotEqualTo(before.array());
      }
    }
  }
}
