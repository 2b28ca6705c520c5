package io.fffs.datanode.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.replication.CopyPlan;
import io.fffs.datanode.store.history.RetentionTable;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A copy of a block whose history garbage collection trimmed ({@link CopyPlan}, applied store to store as a target
 * DataNode applies a re-replication stream) answers exactly as its source: random histories of writes at any offset,
 * appends and truncates, some entries in one microsecond, trimmed to random kept moments (a window or none, points and
 * spans before it); then every moment next to an entry of the untrimmed log and every kept interval's start are read
 * on both stores, as of system time, and again after the copy's store restarts and takes retention tables.
 */
class TrimmedHistoryCopyTest {
  private static final int MAX_PAYLOAD = 2048;  // four fixture pages: widened entries go in pieces

  @TempDir
  Path base;
  StoreFixture source;
  StoreFixture target;

  @BeforeEach
  void open() throws Exception {
    source = new StoreFixture(base.resolve("source")).open();
    target = new StoreFixture(base.resolve("target")).open();
  }

  @AfterEach
  void close() throws Exception {
    source.close();
    target.close();
  }

  @Test
  void copiesOfTrimmedHistoriesAnswerEveryMomentAsTheirSource() throws Exception {
    Random random = new Random(20261128);
    TreeMap<Long, MomentSet> kept = new TreeMap<>();
    List<List<Long>> moments = new ArrayList<>();
    int blocks = 40;
    for (long block = 1; block <= blocks; block++) {
      moments.add(writeHistory(block, random));
      kept.put(block, keptMoments(moments.get((int) block - 1), random));
    }
    List<Long> ids = new ArrayList<>(kept.keySet());
    source.store.sync(ids);
    source.passTime();
    source.store.applyRetention(new RetentionTable(1, blocks + 1, kept));
    source.store.collectHistory();
    assertThat(source.store.stats().entriesCollected.sum()).as("entries trimmed").isGreaterThan(500);

    int widened = 0;
    for (long block : ids) {
      widened += copy(block);
    }
    target.physical.set(source.physical.currentTimeMicros());
    source.passTime();
    target.passTime();
    assertThat(widened).as("calls at stamps of their own (a lost CREATE, a cut, a piece)").isGreaterThan(20);
    int[] answers = compare(ids, moments, kept);
    assertThat(answers[0]).as("kept moments compared").isGreaterThan(300);
    assertThat(answers[1]).as("collected moments refused on both").isGreaterThan(300);

    // The copies keep their moments across restarts: before any table, under a table older than them, and once a
    // table lists them.
    target.restart();
    assertThat(compare(ids, moments, kept)).isEqualTo(answers);
    target.store.applyRetention(new RetentionTable(1, 1, new TreeMap<>()));
    target.restart();
    assertThat(compare(ids, moments, kept)).isEqualTo(answers);
    target.store.applyRetention(new RetentionTable(2, blocks + 1, kept));
    assertThat(compare(ids, moments, kept)).isEqualTo(answers);
    target.restart();
    assertThat(compare(ids, moments, kept)).isEqualTo(answers);
  }

  /**
   * Reads every block on both stores at every moment next to an entry of its untrimmed log, at every start of a kept
   * interval, and now; returns how many moments were answered and how many refused.
   */
  private int[] compare(List<Long> ids, List<List<Long>> moments, TreeMap<Long, MomentSet> kept) throws Exception {
    target.passTime();
    int[] answers = new int[2];
    for (long block : ids) {
      Set<Long> asked = new HashSet<>();
      for (long moment : moments.get((int) block - 1)) {
        asked.add(moment - 1);
        asked.add(moment);
        asked.add(moment + 1);
      }
      MomentSet set = kept.get(block);
      for (int i = 0; i < set.intervalCount(); i++) {
        asked.add(set.start(i));
      }
      for (long micros : asked) {
        String there = answer(source.store, block, micros);
        assertThat(answer(target.store, block, micros)).as("block %d as of %d µs", block, micros).isEqualTo(there);
        answers[there.equals("HISTORY_EXPIRED") ? 1 : 0]++;
      }
      assertThat(answer(target.store, block, Long.MAX_VALUE)).isEqualTo(answer(source.store, block,
          Long.MAX_VALUE));
    }
    return answers;
  }

  @Test
  void garbageCollectionLeavesALogBeingCopiedAsItIsUntilTheCopyEnds() throws Exception {
    Random random = new Random(7);
    List<Long> moments = writeHistory(1, random);
    source.store.sync(List.of(1L));
    source.passTime();
    int entries = source.store.logEntries(1).size();
    try (LogSnapshot snapshot = source.store.logSnapshot(1)) {
      source.store.applyRetention(new RetentionTable(1, 2, new TreeMap<>(Map.of(1L,
          MomentSet.point(moments.get(moments.size() / 2))))));
      source.store.collectHistory();
      assertThat(source.store.logEntries(1)).as("the log while a copy holds it").hasSize(entries);
      assertThat(source.store.stats().entriesCollected.sum()).isZero();
      try (LogSnapshot second = source.store.logSnapshot(1)) {
        assertThat(second.kept()).isNotNull();
        List<CopyPlan.Send> sends = CopyPlan.of(1, second, 0, source.store.pageSize(), MAX_PAYLOAD);
        // No kept moment reads the last state, which the trim drops later; until then a copy ends where this one does.
        CopyPlan.Send last = sends.get(sends.size() - 1);
        assertThat(last.hlc()).isEqualTo(second.entries().get(entries - 1).hlc());
        assertThat(last.lengthAfter()).isEqualTo(second.entries().get(entries - 1).lengthAfter());
      }
    }
    source.store.collectHistory();
    assertThat(source.store.logEntries(1)).as("the log once the copy ended").hasSizeLessThan(entries);
    assertThat(source.store.stats().entriesCollected.sum()).isPositive();
  }

  /** Writes a random history of {@code block}; returns the physical µs of each entry. */
  private List<Long> writeHistory(long block, Random random) throws FffsException {
    List<Long> moments = new ArrayList<>();
    long length = 0;
    int ops = 20 + random.nextInt(60);
    for (int op = 0; op < ops; op++) {
      if (random.nextInt(5) > 0) {
        source.physical.advance(1 + random.nextInt(40));
      }
      WriteResult result;
      if (length > 0 && random.nextInt(8) == 0) {
        result = source.store.truncate(block, random.nextLong(length + 1));
      } else {
        long offset = length == 0 || random.nextInt(3) == 0 ? length : random.nextLong(length + 1);
        int count = 1 + random.nextInt(1000);
        result = source.store.write(block, offset, StoreFixture.bytes(count, random.nextInt()),
            WriteOptions.defaults());
      }
      length = result.blockLength();
      moments.add(result.hlc().physicalMicros());
    }
    return moments;
  }

  /**
   * A window over the last part of the history, or none (as a block only past versions list keeps), points and
   * spans of time before it.
   */
  private static MomentSet keptMoments(List<Long> moments, Random random) {
    long first = moments.get(0);
    long last = moments.get(moments.size() - 1);
    MomentSet.Builder set = new MomentSet.Builder();
    if (random.nextInt(4) > 0) {
      set.add(first + (last - first) * (5 + random.nextInt(5)) / 10, MomentSet.END);
    }
    for (int i = random.nextInt(3); i > 0; i--) {
      long from = first + random.nextLong(last - first + 1);
      set.add(from, from + 1 + random.nextLong((last - first) / 4 + 1));
    }
    for (int i = random.nextInt(6); i > 0; i--) {
      long point = random.nextInt(2) == 0 ? moments.get(random.nextInt(moments.size()))
          : first - 5 + random.nextLong(last - first + 10);
      set.add(point, point + 1);
    }
    return set.build();
  }

  /** Copies {@code block} from the source to the target store; returns how many calls had stamps of their own. */
  private int copy(long block) throws Exception {
    int own = 0;
    try (LogSnapshot snapshot = source.store.logSnapshot(block)) {
      Set<Long> stamps = new HashSet<>();
      snapshot.entries().forEach(e -> stamps.add(e.hlc()));
      List<CopyPlan.Send> sends = CopyPlan.of(block, snapshot, 0, source.store.pageSize(), MAX_PAYLOAD);
      long frontier = source.clock.now().packed();
      target.store.openReplica(block, ReplicaRole.FOLLOWER, 0, snapshot.kept());
      for (CopyPlan.Send send : sends) {
        own += stamps.contains(send.hlc()) ? 0 : 1;
        ReplicaStamp stamp = new ReplicaStamp(send.hlc(), send.createHlc(), send.userTime(), send.lengthAfter(),
            frontier);
        if (send.truncate()) {
          target.store.truncate(block, send.offset(), stamp);
          continue;
        }
        ByteBuffer bytes = ByteBuffer.allocate(send.length());
        if (send.length() > 0) {
          try (ReadView view = source.store.readAtLogIndex(block, send.readIndex(), send.offset(), send.length())) {
            view.copyTo(bytes);
          }
          bytes.flip();
        }
        target.store.write(block, send.offset(), bytes, WriteOptions.defaults().withReplica(stamp));
      }
      target.store.endReplica(block, HlcTimestamp.valueOf(frontier));
    }
    return own;
  }

  /** The block as of {@code micros} (MAX_VALUE: now): its length, entry and bytes, "none", or the refusal. */
  private static String answer(BlockStore store, long block, long micros) throws FffsException {
    TimeSpec time = micros == Long.MAX_VALUE ? TimeSpec.latest() : TimeSpec.system(micros);
    try {
      BlockInfo info = store.info(block, time);
      if (!info.exists()) {
        return "none";
      }
      try (ReadView view = store.read(block, 0, (int) info.length(), time)) {
        return info.length() + " @" + info.hlc() + " " + Arrays.hashCode(view.toBytes());
      }
    } catch (FffsException e) {
      if (e.code() == ErrorCode.HISTORY_EXPIRED) {
        return "HISTORY_EXPIRED";
      }
      throw e;
    }
  }
}
