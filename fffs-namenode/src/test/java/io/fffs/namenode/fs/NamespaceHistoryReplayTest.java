package io.fffs.namenode.fs;

import static io.fffs.namenode.fs.NamesystemFixture.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.time.TimeSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 2,000 random operations; answers at 300 random past times recorded; the NameNode restarted with and without a
 * checkpoint in between: every answer must be identical.
 */
class NamespaceHistoryReplayTest {
  private static final String[] DIRS = {"/", "/a", "/a/b", "/c", "/a/b/d", "/e"};
  private static final String[] NAMES = {"f1", "f2", "f3", "g", "h"};

  @TempDir
  Path dir;

  private final Random random = new Random(20261121);
  private final List<String> paths = new ArrayList<>();
  private final Map<String, long[]> open = new HashMap<>();  // path -> {inodeId, lastBlockId}
  private int failures;

  @Test
  void answersAtPastTimesSurviveRestartsAndCheckpoints() throws Exception {
    try (NamesystemFixture nn = new NamesystemFixture(dir, NamesystemFixture.conf())) {
      long start = nn.physical.currentTimeMicros();
      for (int i = 0; i < 2000; i++) {
        nn.advance(random.nextInt(4) == 0 ? 0 : random.nextInt(2_000));
        randomOp(nn.fs, i);
        if (i == 999) {
          nn.fs.checkpoint();  // the first restart replays edits on top of this image
        }
      }
      long end = nn.physical.currentTimeMicros();
      nn.advance(1_000);
      long[] times = new long[300];
      for (int i = 0; i < times.length; i++) {
        times[i] = start + (long) (random.nextDouble() * (end - start));
      }
      List<String> answers = ask(nn.fs, times);
      assertThat(failures).as("most random ops must succeed to mean something").isLessThan(1000);
      assertThat(answers.stream().filter(a -> a.contains("IS_FILE")).count()).isGreaterThan(100);

      nn.restart();
      assertThat(ask(nn.fs, times)).containsExactlyElementsOf(answers);

      nn.fs.checkpoint();
      nn.restart();
      assertThat(ask(nn.fs, times)).containsExactlyElementsOf(answers);
    }
  }

  private void randomOp(Namesystem fs, int i) throws Exception {
    String parent = DIRS[random.nextInt(DIRS.length)];
    String path = parent.equals("/") ? "/" + NAMES[random.nextInt(NAMES.length)]
        : parent + "/" + NAMES[random.nextInt(NAMES.length)];
    try {
      switch (random.nextInt(9)) {
        case 0:
          fs.directories.mkdirs(ADMIN, DIRS[random.nextInt(DIRS.length)], 0755, true).await();
          break;
        case 1:
        case 2: {
          FileStatusProto created = fs.files.create(ADMIN, path, 0644, "c" + i, random.nextBoolean(), true, 1,
              1 << 20, null).await();
          open.put(path, new long[] {created.getInodeId(), -1});
          paths.add(path);
          break;
        }
        case 3:
        case 4: {
          String file = pick(new ArrayList<>(open.keySet()));
          if (file != null) {
            long[] state = open.get(file);
            String client = clientOf(fs, file);
            BlockProto previous = state[1] < 0 ? null
                : BlockProto.newBuilder().setBlockId(state[1]).setNumBytes(1 + random.nextInt(1 << 20)).build();
            LocatedBlockProto block = fs.files.addBlock(ADMIN, file, state[0], client, previous).await();
            state[1] = block.getBlock().getBlockId();
          }
          break;
        }
        case 5: {
          String file = pick(new ArrayList<>(open.keySet()));
          if (file != null) {
            long[] state = open.remove(file);
            BlockProto last = state[1] < 0 ? null
                : BlockProto.newBuilder().setBlockId(state[1]).setNumBytes(random.nextInt(1 << 20)).build();
            fs.files.complete(ADMIN, file, state[0], clientOf(fs, file), last).await();
          }
          break;
        }
        case 6: {
          String src = pick(paths);
          if (src != null && fs.directories.rename(ADMIN, src, path).await()) {
            paths.add(path);
            open.remove(src);
          }
          break;
        }
        case 7: {
          String victim = random.nextInt(5) == 0 ? DIRS[1 + random.nextInt(DIRS.length - 1)] : pick(paths);
          if (victim != null) {
            fs.directories.delete(ADMIN, victim, true).await();
            open.remove(victim);
          }
          break;
        }
        default: {
          String target = pick(paths);
          if (target != null) {
            fs.directories.setPermission(ADMIN, target, random.nextInt(0777)).await();
          }
        }
      }
    } catch (FffsException expected) {
      failures++;  // e.g. a rename into a file's position, a create over a directory: nothing changes
    }
  }

  private static String clientOf(Namesystem fs, String path) throws Exception {
    FileStatusProto status = fs.queries.getFileInfo(ADMIN, path, TimeSpec.latest());
    return status == null ? "gone" : fs.leases().holder(status.getInodeId());
  }

  private String pick(List<String> from) {
    return from.isEmpty() ? null : from.get(random.nextInt(from.size()));
  }

  private List<String> ask(Namesystem fs, long[] times) throws Exception {
    Random questions = new Random(7);
    List<String> answers = new ArrayList<>();
    for (long t : times) {
      TimeSpec at = TimeSpec.system(t);
      String dirPath = DIRS[questions.nextInt(DIRS.length)];
      String file = dirPath.equals("/") ? "/f1" : dirPath + "/" + NAMES[questions.nextInt(NAMES.length)];
      FileStatusProto status = fs.queries.getFileInfo(ADMIN, file, at);
      answers.add(t + " info " + file + " " + status);
      try {
        answers.add(t + " list " + dirPath + " " + fs.queries.getListing(ADMIN, dirPath, at, "", 100).entries);
      } catch (FffsException e) {
        answers.add(t + " list " + dirPath + " " + e.getMessage());
      }
      if (status != null && status.getType() == FileStatusProto.FileType.IS_FILE) {
        LocatedBlocksProto blocks = fs.queries.getBlockLocations(ADMIN, file, at, 0, Long.MAX_VALUE);
        answers.add(t + " blocks " + file + " " + blocks.getFileLength() + " " + blocks.getBlocksCount());
      }
    }
    return answers;
  }
}
