package io.fffs.namenode.fs;

import static io.fffs.namenode.fs.NamesystemFixture.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.NameNodeConfigKeys;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model-based test of bounded history on the NameNode. Random creates, overwrites, deletes, renames and attribute
 * changes go to two namesystems on one clock: the one under test, which also gets retention rules, pins,
 * garbage-collection passes and restarts (from the edit log and from checkpoints), and a reference that keeps
 * everything. After every step, queries at random past moments must satisfy the model:
 * <ul>
 *   <li>whatever the one under test answers is exactly what the reference answers (never a different answer);</li>
 *   <li>a moment every rule ever set keeps (within the shortest window), and a pinned moment of a pinned path, is
 *       answered;</li>
 *   <li>when every directory's rule is bounded, a moment before the longest window that no pin, tier or kept
 *       version names is refused with HISTORY_EXPIRED.</li>
 * </ul>
 */
class HistoryModelTest {
  private static final long SECOND = 1_000_000L;
  private static final String[] DIRS = {"/a", "/b", "/c"};
  private static final String[] NAMES = {"f0", "f1", "f2", "f3"};
  private static final String[] RULES = {"none", "3s", "5s", "4s 2v", "3s 2s/60s"};
  private static final long SHORTEST_WINDOW = 3 * SECOND;

  @TempDir
  Path sutDir;
  @TempDir
  Path referenceDir;

  private Random random;
  private final Map<String, String> rules = new HashMap<>();
  private final List<long[]> pinMoments = new ArrayList<>();  // {micros}
  private final Map<String, String> pinPaths = new HashMap<>();
  private final Set<Long> opMoments = new HashSet<>();
  private int answered;
  private int expired;
  private int passes;
  private int restarts;

  /** {@code batchUnits}: the passes' step size ({@code fffs.history.gc.batch-inodes}); 3 cuts every read small. */
  @ParameterizedTest
  @CsvSource({"20261126, 1000", "4242, 3"})
  void randomHistoryWithRulesPinsPassesAndRestartsMatchesTheModel(long seed, int batchUnits) throws Exception {
    random = new Random(seed);
    Configuration conf = NamesystemFixture.conf();
    conf.setInt(NameNodeConfigKeys.HISTORY_GC_BATCH_INODES_KEY, batchUnits);
    try (NamesystemFixture sut = new NamesystemFixture(sutDir, conf);
        NamesystemFixture reference = new NamesystemFixture(referenceDir, NamesystemFixture.conf())) {
      for (String dir : DIRS) {
        sut.fs.directories.mkdirs(ADMIN, dir, 0755, true).await();
        reference.fs.directories.mkdirs(ADMIN, dir, 0755, true).await();
        rules.put(dir, "none");
      }
      long start = sut.physical.currentTimeMicros();
      for (int step = 0; step < 1000; step++) {
        long advance = random.nextInt(5) == 0 ? 0 : random.nextInt(1_200_000);
        sut.advance(advance);
        reference.advance(advance);
        opMoments.add(sut.physical.currentTimeMicros());
        int choice = random.nextInt(100);
        if (choice < 55) {
          namespaceOp(sut.fs, reference.fs, step);
        } else if (choice < 62) {
          setRule(sut.fs);
        } else if (choice < 70) {
          pin(sut, step);
        } else if (choice < 73 && !pinPaths.isEmpty()) {
          unpin(sut.fs);
        } else if (choice < 88) {
          sut.fs.collectHistory(null);
          passes++;
        } else if (choice < 92) {
          if (random.nextBoolean()) {
            sut.fs.checkpoint();
          }
          sut.restart();
          restarts++;
        }
        sut.advance(1);
        reference.advance(1);
        for (int q = 0; q < 4; q++) {
          query(sut, reference, start);
        }
      }
    }
    assertThat(passes).isGreaterThan(100);
    assertThat(restarts).isGreaterThan(20);
    assertThat(answered).as("queries answered").isGreaterThan(600);
    assertThat(expired).as("queries refused at the horizon").isGreaterThan(300);
  }

  private void namespaceOp(Namesystem sut, Namesystem reference, int step) throws Exception {
    String path = DIRS[random.nextInt(DIRS.length)] + "/" + NAMES[random.nextInt(NAMES.length)];
    int kind = random.nextInt(10);
    long length = random.nextInt(1 << 20);
    String other = DIRS[random.nextInt(DIRS.length)] + "/" + NAMES[random.nextInt(NAMES.length)];
    int permission = random.nextInt(0777);
    for (Namesystem fs : List.of(sut, reference)) {
      try {
        if (kind < 5) {
          FileStatusProto created = fs.files.create(ADMIN, path, 0644, "c" + step, true, true, 1, 1 << 20, null)
              .await();
          LocatedBlockProto block = fs.files.addBlock(ADMIN, path, created.getInodeId(), "c" + step, null).await();
          fs.files.complete(ADMIN, path, created.getInodeId(), "c" + step, BlockProto.newBuilder()
              .setBlockId(block.getBlock().getBlockId()).setNumBytes(length).build()).await();
        } else if (kind < 7) {
          fs.directories.delete(ADMIN, path, false).await();
        } else if (kind < 9) {
          fs.directories.rename(ADMIN, path, other).await();
        } else {
          fs.directories.setPermission(ADMIN, path, permission).await();
        }
      } catch (FffsException e) {
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);  // e.g. a permission change of a missing file
      }
    }
  }

  private void setRule(Namesystem sut) throws Exception {
    String dir = DIRS[random.nextInt(DIRS.length)];
    String rule = RULES[random.nextInt(RULES.length)];
    sut.history.setRetention(ADMIN, dir, RetentionRule.parse(rule)).await();
    rules.put(dir, rule);
  }

  private void pin(NamesystemFixture sut, int step) throws Exception {
    String path = random.nextBoolean() ? DIRS[random.nextInt(DIRS.length)]
        : DIRS[random.nextInt(DIRS.length)] + "/" + NAMES[random.nextInt(NAMES.length)];
    long micros = sut.physical.currentTimeMicros() - 1 - random.nextInt((int) (2 * SECOND));
    try {
      sut.fs.history.pin(ADMIN, path, TimeSpec.system(micros), "p" + step).await();
      pinMoments.add(new long[] {micros});
      pinPaths.put("p" + step, path + "\n" + micros);
    } catch (FffsException e) {
      assertThat(e.code()).isIn(ErrorCode.NOT_FOUND, ErrorCode.HISTORY_EXPIRED);
    }
  }

  private void unpin(Namesystem sut) throws Exception {
    List<String> names = new ArrayList<>(pinPaths.keySet());
    String name = names.get(random.nextInt(names.size()));
    sut.history.unpin(ADMIN, name).await();
    long micros = Long.parseLong(pinPaths.remove(name).split("\n")[1]);
    pinMoments.removeIf(m -> m[0] == micros);
  }

  private void query(NamesystemFixture sut, NamesystemFixture reference, long start) throws Exception {
    long now = sut.physical.currentTimeMicros();
    long t = start + (long) (random.nextDouble() * (now - start - 1));
    Map.Entry<String, String> pinned = null;
    if (random.nextInt(4) == 0 && !pinPaths.isEmpty()) {
      List<Map.Entry<String, String>> pins = new ArrayList<>(pinPaths.entrySet());
      pinned = pins.get(random.nextInt(pins.size()));
      t = Long.parseLong(pinned.getValue().split("\n")[1]);
    }
    String path = pinned != null && random.nextBoolean() ? pinned.getValue().split("\n")[0]
        : random.nextBoolean() ? DIRS[random.nextInt(DIRS.length)]
        : DIRS[random.nextInt(DIRS.length)] + "/" + NAMES[random.nextInt(NAMES.length)];
    String expected = ask(reference.fs, path, t);
    String actual = ask(sut.fs, path, t);
    boolean underPin = pinned != null && (path + "/").startsWith(pinned.getValue().split("\n")[0] + "/");
    boolean mustKeep = t >= now - SHORTEST_WINDOW || underPin;
    boolean mustExpire = pinned == null && allBounded() && t < now - longestWindow() - SECOND
        && !opMoments.contains(t) && t % 1000 != 0 && !isPinMoment(t);
    if (actual.startsWith("HISTORY_EXPIRED")) {
      expired++;
      assertThat(mustKeep).as("%s at %d (now %d) must be answered, was refused: %s", path, t, now, actual)
          .isFalse();
    } else {
      answered++;
      assertThat(actual).as("%s at %d: the answer under test equals the reference's", path, t).isEqualTo(expected);
      assertThat(mustExpire).as("%s at %d (now %d) is beyond every window and named moment", path, t, now)
          .isFalse();
    }
  }

  /** The status, and the listing or the blocks, of {@code path} at {@code t}; or the error's code and message. */
  private String ask(Namesystem fs, String path, long t) throws Exception {
    StringBuilder answer = new StringBuilder();
    try {
      FileStatusProto status = fs.queries.getFileInfo(ADMIN, path, TimeSpec.system(t));
      answer.append(status == null ? "none" : status.toBuilder().clearVersionHlc().buildPartial().toString());
      if (status != null && status.getType() == FileStatusProto.FileType.IS_DIR) {
        for (FileStatusProto entry : fs.queries.getListing(ADMIN, path, TimeSpec.system(t), "", 100).entries) {
          answer.append(" | ").append(entry.toBuilder().clearVersionHlc().buildPartial());
        }
      } else if (status != null) {
        LocatedBlocksProto blocks = fs.queries.getBlockLocations(ADMIN, path, TimeSpec.system(t), 0, Long.MAX_VALUE);
        LocatedBlocksProto.Builder shown = blocks.toBuilder().clearVersionHlc();
        for (int i = 0; i < shown.getBlocksCount(); i++) {
          shown.setBlocks(i, shown.getBlocks(i).toBuilder().clearLocations());  // soft state, gone at a restart
        }
        answer.append(" # ").append(shown.buildPartial());
      }
      return answer.toString();
    } catch (FffsException e) {
      return e.code() + ": " + e.getMessage();
    }
  }

  private boolean isPinMoment(long t) {
    for (long[] moment : pinMoments) {
      if (moment[0] == t) {
        return true;
      }
    }
    return false;
  }

  private boolean allBounded() {
    return rules.values().stream().noneMatch("none"::equals);
  }

  private long longestWindow() throws Exception {
    long longest = 0;
    for (String rule : rules.values()) {
      longest = Math.max(longest, RetentionRule.parse(rule).keepForMicros());
    }
    return longest;
  }
}
