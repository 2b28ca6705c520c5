package io.fffs.datanode.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.ManualPhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.usertime.FixedRecordUserTimeExtractor;
import io.fffs.protocol.frame.ChunkChecksums;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A seeded random workload mirrored in a {@link ReferenceModel}: random-offset overwrites and appends on several
 * blocks, truncates, deletes (and re-creation), refused writes (beyond the end, past the block size, user time going
 * back) that must change nothing, and append-only user-time blocks whose records split across writes. Then random
 * temporal reads (system time, user time, log index) compared byte for byte with the model.
 */
final class RandomWorkload {
  static final int PLAIN_BLOCKS = 6;
  static final long USER_TIME_BLOCK_A = 100;
  static final long USER_TIME_BLOCK_B = 101;
  static final long BLOCK_SIZE = 48 * 1024;
  static final int MAX_WRITE = 3000;

  final ReferenceModel model = new ReferenceModel();
  private final Random random;
  private final ManualPhysicalClock physical;
  private final WriteOptions plain = WriteOptions.defaults().withBlockSize(BLOCK_SIZE);
  private final WriteOptions timed = plain.withUserTimeExtractor(FixedRecordUserTimeExtractor.NAME);
  /** Per user-time block: the next record's user time, and the model's own parse of partial records. */
  private final long[] nextUserTime = {1_000_000, 1_000_000};
  private final byte[][] partial = {new byte[16], new byte[16]};
  /** Per user-time block: record bytes generated but not yet written (a write may end inside a record). */
  private final ByteBuffer[] outboxes = {ByteBuffer.allocate(2048), ByteBuffer.allocate(2048)};
  private final int[] partialFill = {0, 0};
  int refused;
  /** Mutations the store accepted. */
  int accepted;

  RandomWorkload(long seed, ManualPhysicalClock physical) {
    this.random = new Random(seed);
    this.physical = physical;
  }

  /** One random operation; returns false if the store refused it with IO_ERROR (it failed, e.g. a crash hook). */
  boolean step(BlockStore store) throws FffsException {
    physical.advance(random.nextInt(4));
    try {
      if (random.nextInt(5) == 0) {
        timedAppend(store, random.nextBoolean() ? 0 : 1);
      } else {
        plainOp(store, random.nextInt(PLAIN_BLOCKS));
      }
      return true;
    } catch (FffsException e) {
      if (e.code() == ErrorCode.IO_ERROR) {
        return false;
      }
      throw e;
    }
  }

  private void plainOp(BlockStore store, long block) throws FffsException {
    byte[] current = model.current(block);
    if (current == null) {
      byte[] bytes = data(1 + random.nextInt(MAX_WRITE));
      record(store, block, store.write(block, 0, ByteBuffer.wrap(bytes), plain), 0, bytes);
      return;
    }
    int dice = random.nextInt(1000);
    if (dice < 5) {
      WriteResult deleted = store.delete(block);
      accepted++;
      model.add(block, new ReferenceModel.Entry(ReferenceModel.Op.DELETE, deleted.hlc().packed(),
          model.lastUserTime(block), 0, null, 0));
    } else if (dice < 25) {
      long newLength = random.nextInt(current.length + 1);
      WriteResult truncated = store.truncate(block, newLength);
      accepted++;
      model.add(block, new ReferenceModel.Entry(ReferenceModel.Op.TRUNCATE, truncated.hlc().packed(),
          model.lastUserTime(block), 0, null, newLength));
    } else if (dice < 35) {
      expectRefused(store, block, current.length + 1 + random.nextInt(100), 10, ErrorCode.WRITE_BEYOND_EOF);
    } else if (dice < 40) {
      int offset = random.nextInt(current.length + 1);
      expectRefused(store, block, offset, (int) (BLOCK_SIZE - offset) + 1 + random.nextInt(100),
          ErrorCode.BLOCK_SIZE_EXCEEDED);
    } else {
      int offset = random.nextInt(4) == 0 ? current.length : random.nextInt(current.length + 1);
      if (random.nextInt(4) == 0) {
        offset -= offset % ChunkChecksums.CHUNK_BYTES; // on a chunk boundary: whole pages get derived CRCs
      }
      int size = (int) Math.min(1 + random.nextInt(MAX_WRITE), BLOCK_SIZE - offset);
      if (size > 0) {
        byte[] bytes = data(size);
        // Half the writes carry their chunk CRCs, as writes through the data server do.
        WriteOptions options = random.nextBoolean() ? plain
            : plain.withChunkCrcs(ChunkChecksums.of(ByteBuffer.wrap(bytes)));
        record(store, block, store.write(block, offset, ByteBuffer.wrap(bytes), options), offset, bytes);
      }
    }
  }

  private void expectRefused(BlockStore store, long block, long offset, int size, ErrorCode code)
      throws FffsException {
    int before = model.log(block).size();
    try {
      store.write(block, offset, ByteBuffer.wrap(data(size)), plain);
      fail("a write at " + offset + " of block " + block + " should be " + code);
    } catch (FffsException e) {
      if (e.code() != code) {
        throw e;
      }
      refused++;
    }
    assertThat(store.info(block, TimeSpec.latest()).logIndex()).isEqualTo(before - 1);
  }

  /** Records a successful write (and the create entry before it, if it made one) in the model. */
  private void record(BlockStore store, long block, WriteResult result, long offset, byte[] bytes)
      throws FffsException {
    accepted++;
    List<ReferenceModel.Entry> log = model.log(block);
    boolean created = log.isEmpty() || log.get(log.size() - 1).op() == ReferenceModel.Op.DELETE;
    long userTime = model.lastUserTime(block);
    if (created) {
      addCreate(store, block, userTime);
    }
    model.add(block, new ReferenceModel.Entry(ReferenceModel.Op.WRITE, result.hlc().packed(), userTime, offset,
        bytes, 0));
    assertThat(result.logIndex()).isEqualTo(log.size() - 1);
  }

  /** The create entry a first write made; its HLC is read back from the store. */
  private void addCreate(BlockStore store, long block, long userTime) throws FffsException {
    int index = model.log(block).size();
    long hlc = store.infoAtLogIndex(block, index).hlc().packed();
    model.add(block, new ReferenceModel.Entry(ReferenceModel.Op.CREATE, hlc, userTime, 0, null, 0));
  }

  private void timedAppend(BlockStore store, int which) throws FffsException {
    long block = which == 0 ? USER_TIME_BLOCK_A : USER_TIME_BLOCK_B;
    byte[] current = model.current(block);
    int length = current == null ? 0 : current.length;
    ByteBuffer outbox = outboxes[which];
    int records = 1 + random.nextInt(40);
    for (int r = 0; r < records && outbox.remaining() >= 16; r++) {
      nextUserTime[which] += random.nextInt(3) * 1000L;
      outbox.put(FixedRecordUserTimeExtractor.record(nextUserTime[which], (byte) r));
    }
    ByteBuffer pending = outbox.duplicate().flip();
    int size = Math.min(1 + random.nextInt(pending.remaining()), (int) BLOCK_SIZE - length);
    if (size <= 0) {
      return;
    }
    if (length > 64 && random.nextInt(50) == 0) {
      // Everything pending plus a record from the past: refused, and the pending bytes stay unwritten.
      ByteBuffer bad = ByteBuffer.allocate(pending.remaining() + 16).put(pending.duplicate())
          .put(FixedRecordUserTimeExtractor.record(nextUserTime[which] - 500_000, (byte) 0)).flip();
      int before = model.log(block).size();
      try {
        store.write(block, length, bad, timed);
        fail("user time went back in block " + block + " but the write was accepted");
      } catch (FffsException e) {
        if (e.code() != ErrorCode.USER_TIME_REGRESSION) {
          throw e;
        }
        refused++;
      }
      assertThat(store.info(block, TimeSpec.latest()).logIndex()).isEqualTo(before - 1);
      return;
    }
    byte[] data = new byte[size];
    pending.get(data);
    WriteResult result = store.write(block, length, ByteBuffer.wrap(data), timed);
    accepted++;
    outbox.flip().position(size);
    outbox.compact();
    long userTime = model.lastUserTime(block);
    for (byte b : data) {
      partial[which][partialFill[which]++] = b;
      if (partialFill[which] == 16) {
        userTime = ByteBuffer.wrap(partial[which]).getLong(0);
        partialFill[which] = 0;
      }
    }
    if (current == null) {
      addCreate(store, block, model.lastUserTime(block));
    }
    model.add(block, new ReferenceModel.Entry(ReferenceModel.Op.WRITE, result.hlc().packed(), userTime, length,
        data, 0));
    assertThat(result.logIndex()).isEqualTo(model.log(block).size() - 1);
  }

  private byte[] data(int size) {
    byte[] bytes = new byte[size];
    random.nextBytes(bytes);
    return bytes;
  }

  /** Every block the workload touches. */
  long[] blocks() {
    long[] ids = new long[PLAIN_BLOCKS + 2];
    for (int i = 0; i < PLAIN_BLOCKS; i++) {
      ids[i] = i;
    }
    ids[PLAIN_BLOCKS] = USER_TIME_BLOCK_A;
    ids[PLAIN_BLOCKS + 1] = USER_TIME_BLOCK_B;
    return ids;
  }

  /**
   * {@code count} random reads at system times, user times and log indexes, each compared byte for byte (and in
   * length, resolved HLC and existence) with the model.
   */
  void verifyReads(BlockStore store, int count) throws FffsException {
    long[] blocks = blocks();
    for (int n = 0; n < count; n++) {
      long block = blocks[random.nextInt(blocks.length)];
      List<ReferenceModel.Entry> log = model.log(block);
      if (log.isEmpty()) {
        continue;
      }
      ReferenceModel.Entry pick = log.get(random.nextInt(log.size()));
      int kind = random.nextInt(3);
      int expectedIndex;
      TimeSpec time = null;
      if (kind == 0) {
        long micros = HlcTimestamp.valueOf(pick.hlc()).physicalMicros() + random.nextInt(3) - 1;
        time = TimeSpec.system(micros);
        expectedIndex = model.indexAtSystem(block, micros);
      } else if (kind == 1) {
        long micros = Math.max(0, pick.userTime() + random.nextInt(3) - 1);
        time = TimeSpec.user(micros);
        expectedIndex = model.indexAtUser(block, micros);
      } else {
        expectedIndex = random.nextInt(log.size());
      }
      byte[] expected = model.stateAt(block, expectedIndex);
      String what = "block " + block + " " + (time == null ? "log index " + expectedIndex : time.toString());
      BlockInfo info = time == null ? store.infoAtLogIndex(block, expectedIndex) : store.info(block, time);
      assertThat(info.logIndex()).as(what).isEqualTo(expectedIndex);
      assertThat(info.exists()).as(what).isEqualTo(expected != null);
      if (expectedIndex >= 0) {
        assertThat(info.hlc().packed()).as(what).isEqualTo(log.get(expectedIndex).hlc());
      }
      if (expected == null) {
        try {
          read(store, block, time, expectedIndex, 0, 10);
          fail(what + " should not exist");
        } catch (FffsException e) {
          assertThat(e.code()).as(what).isEqualTo(ErrorCode.NOT_FOUND);
        }
        continue;
      }
      int offset = random.nextInt(expected.length + 1);
      int length = random.nextInt(2 * MAX_WRITE);
      byte[] actual = read(store, block, time, expectedIndex, offset, length);
      assertThat(actual).as(what + " at " + offset + "+" + length)
          .isEqualTo(Arrays.copyOfRange(expected, offset, Math.min(expected.length, offset + length)));
    }
  }

  private static byte[] read(BlockStore store, long block, TimeSpec time, int index, int offset, int length)
      throws FffsException {
    try (ReadView view = time == null ? store.readAtLogIndex(block, index, offset, length)
        : store.read(block, offset, length, time)) {
      return view.toBytes();
    }
  }
}
