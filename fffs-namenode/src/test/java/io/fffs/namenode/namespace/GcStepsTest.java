package io.fffs.namenode.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.NamenodeEditsProtos.AddBlockOp;
import io.fffs.common.proto.NamenodeEditsProtos.CompleteOp;
import io.fffs.common.proto.NamenodeEditsProtos.CreateOp;
import io.fffs.common.proto.NamenodeEditsProtos.DeleteOp;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.MkdirsOp;
import io.fffs.common.proto.NamenodeEditsProtos.PinOp;
import io.fffs.common.proto.NamenodeEditsProtos.RenameOp;
import io.fffs.common.proto.NamenodeEditsProtos.SetRetentionOp;
import io.fffs.common.time.HlcTimestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A garbage-collection pass reads the namespace in bounded steps: over a namespace of ~670 inodes with a budget of
 * 16 units, no read-lock hold visits more than the budget and one name's entries or one file's versions, changes
 * between the holds go on, and the pass leaves exactly the namespace (and the blocks' retention table) one unbounded
 * read leaves, with every retained moment reading as before.
 */
class GcStepsTest {
  private static final long START_MICROS = 1_763_719_200_000_000L;
  private static final long SECOND = 1_000_000L;
  private static final int DIRECTORIES = 12;
  private static final int FILES = 8;
  private static final int ROUNDS = 6;
  private static final int BUDGET = 16;

  /** A namespace with rules, pins, overwrites, renames and deletes, built the same way each time. */
  private static final class Built {
    final Namespace namespace = Namespace.format("cluster-7", "admin", "supergroup", (short) 0755);
    final NamespaceApplier applier = new NamespaceApplier(namespace);
    final TreeSet<String> paths = new TreeSet<>();
    final long[] rounds = new long[ROUNDS];
    long micros = START_MICROS;
    long lateDirectory;
    long now;

    Built() throws Exception {
      for (int d = 0; d < DIRECTORIES; d++) {
        apply(EditOpProto.newBuilder().setMkdirs(MkdirsOp.newBuilder().setPath("/d" + d + "/sub")
            .addInodeIds(namespace.allocateInodeId()).addInodeIds(namespace.allocateInodeId()).setPermission(0755)
            .setOwner("admin").setGroup("supergroup")).build());
        String rule = d % 3 == 0 ? "3s 2v" : d % 3 == 1 ? "1s" : null;  // else the cluster default
        if (rule != null) {
          apply(EditOpProto.newBuilder().setSetRetention(SetRetentionOp.newBuilder().setPath("/d" + d)
              .setRule(RetentionRule.parse(rule).toProto())).build());
        }
      }
      lateDirectory = namespace.allocateInodeId();
      apply(EditOpProto.newBuilder().setMkdirs(MkdirsOp.newBuilder().setPath("/late").addInodeIds(lateDirectory)
          .setPermission(0755).setOwner("admin").setGroup("supergroup")).build());
      for (int r = 0; r < ROUNDS; r++) {
        for (int d = 0; d < DIRECTORIES; d++) {
          for (int f = 0; f < FILES; f++) {
            write("/d" + d + "/f" + f, 100 * r + f);
          }
          write("/d" + d + "/sub/g", r);
          if (r == 2) {
            rename("/d" + d + "/f7", "/d" + d + "/sub/moved");
            apply(EditOpProto.newBuilder().setDelete(DeleteOp.newBuilder().setPath("/d" + d + "/f6")).build());
          }
        }
        rounds[r] = micros;
        micros += SECOND / 4;
      }
      pin("all", "/", rounds[0]);
      pin("one", "/d3", rounds[1]);
      now = micros + SECOND / 2;
    }

    private void write(String path, long length) {
      paths.add(path);
      long inode = namespace.allocateInodeId();
      long block = namespace.allocateBlockId();
      apply(EditOpProto.newBuilder().setCreate(CreateOp.newBuilder().setPath(path).setInodeId(inode)
          .setPermission(0644).setOwner("admin").setGroup("supergroup").setReplication(1).setBlockSize(1 << 20)
          .setClientName("writer")).build());
      apply(EditOpProto.newBuilder().setAddBlock(AddBlockOp.newBuilder().setInodeId(inode).setBlockId(block)
          .setDatanodeUuid("dn-1")).build());
      apply(EditOpProto.newBuilder().setComplete(CompleteOp.newBuilder().setInodeId(inode).setLastBlockId(block)
          .setLastBlockLength(length)).build());
    }

    private void rename(String src, String dst) {
      paths.add(dst);
      apply(EditOpProto.newBuilder().setRename(RenameOp.newBuilder().setSrc(src).setDst(dst)).build());
    }

    private void pin(String name, String path, long at) {
      apply(EditOpProto.newBuilder().setPin(PinOp.newBuilder().setPin(new Pin(name, path, at, "admin").toProto()))
          .build());
    }

    void apply(EditOpProto op) {
      micros += 1_000;
      applier.apply(op, HlcTimestamp.of(micros, 0));
    }

    Map<String, String> answers(long... moments) throws Exception {
      return GcResults.answers(namespace, paths, moments);
    }

    /** Every inode below the late directory's id, whole: states, kept moments, names and their histories. */
    List<String> dump() {
      return GcResults.dump(namespace, lateDirectory);
    }
  }

  @Test
  void aPassReadsInBoundedHoldsWritesGoOnBetweenThemAndItDropsWhatAnUnboundedReadDrops() throws Exception {
    RetentionRule clusterDefault = RetentionRule.parse("2s");
    Built whole = new Built();
    Built stepped = new Built();
    // A step stops between names and between files: it may pass the budget by one name's entries or file's versions.
    int overshoot = Math.max(stepped.namespace.inodes().stream().mapToInt(inode -> inode.states().size()).max()
        .orElseThrow(), stepped.namespace.inodes().stream().flatMap(inode -> inode.children().values().stream())
        .mapToInt(ChildHistory::size).max().orElseThrow());
    int inodes = stepped.namespace.inodeCount();
    // What applying each keep goes through, but for the directory that changes while the pass reads.
    long units = stepped.namespace.inodes().stream().filter(inode -> inode.id() != stepped.lateDirectory)
        .mapToLong(inode -> 1 + inode.states().size()
            + inode.children().values().stream().mapToInt(ChildHistory::size).sum()).sum();
    long[] kept = {stepped.now - SECOND / 2, stepped.now};
    Map<String, String> before = stepped.answers(stepped.rounds[0]);
    Map<String, String> beforeOne = stepped.answers(stepped.rounds[1]);
    Map<String, String> beforeWindow = stepped.answers(kept);

    GcPass.Result reference = GcPass.run(whole.namespace, HlcTimestamp.of(whole.now, 0), clusterDefault);

    List<Integer> holds = new ArrayList<>();
    GcPass.Locked counting = step -> {
      holds.add(step.run());
      stepped.apply(EditOpProto.newBuilder().setCreate(CreateOp.newBuilder().setPath("/late/f" + holds.size())
          .setInodeId(stepped.namespace.allocateInodeId()).setPermission(0644).setOwner("admin")
          .setGroup("supergroup").setReplication(1).setBlockSize(1 << 20).setClientName("late")).build());
    };
    stepped.micros = stepped.now;  // the changes between holds come after the pass's time
    List<GcPass.Keep> plan = GcPass.plan(stepped.namespace, stepped.now, clusterDefault, BUDGET, counting);
    long versions = 0;
    long names = 0;
    for (int from = 0; from < plan.size(); from += BUDGET) {
      GcPass.Result batch = GcPass.apply(stepped.namespace, plan.subList(from, Math.min(plan.size(), from + BUDGET)));
      versions += batch.versionsDropped();
      names += batch.namesDropped();
    }
    assertThat(plan.stream().filter(keep -> keep.inodeId() != stepped.lateDirectory).mapToLong(GcPass.Keep::units)
        .sum()).as("each keep's units: itself, its versions, its names' entries").isEqualTo(units);
    List<Long> removed = GcPass.remove(stepped.namespace, GcPass.unreachable(stepped.namespace, BUDGET, counting));
    GcPass.finished(stepped.namespace, HlcTimestamp.of(stepped.now, 0));
    BlockRetention table = BlockRetention.compute(stepped.namespace, BUDGET, counting);

    assertThat(reference.versionsDropped()).as("the pass drops versions").isGreaterThan(100);
    assertThat(reference.inodesRemoved()).as("and inodes").isGreaterThan(100);
    assertThat(versions).isEqualTo(reference.versionsDropped());
    assertThat(names).isEqualTo(reference.namesDropped());
    assertThat(removed).containsExactlyInAnyOrderElementsOf(reference.removedInodeIds());
    assertThat(stepped.dump()).isEqualTo(whole.dump());
    assertThat(table).isEqualTo(BlockRetention.compute(whole.namespace));
    assertThat(table.blocks()).as("blocks of dropped versions are left out")
        .hasSizeLessThan((int) whole.namespace.nextBlockId() - 1 - 100);

    long visited = holds.stream().mapToLong(Integer::intValue).sum();
    assertThat(visited).as("every inode listed, read, checked for reachability and its blocks")
        .isGreaterThan(4L * inodes);
    assertThat(holds).as("no hold visits more than the budget and one name's entries or file's versions")
        .allSatisfy(hold -> assertThat(hold).isLessThan(BUDGET + overshoot));
    assertThat(holds.size()).isGreaterThanOrEqualTo((int) (visited / (BUDGET + overshoot)));
    assertThat(stepped.namespace.resolve(List.of("late", "f" + holds.size()), Namespace.LATEST))
        .as("a change made between the last two holds").isNotNull();

    assertThat(stepped.answers(stepped.rounds[0])).as("the moment pinned on /").isEqualTo(before);
    Map<String, String> one = stepped.answers(stepped.rounds[1]);
    beforeOne.forEach((key, answer) -> {
      if (key.startsWith("/d3/")) {
        assertThat(one.get(key)).as("the moment pinned on /d3: %s", key).isEqualTo(answer);
      }
    });
    assertThat(stepped.answers(kept)).as("moments every rule keeps").isEqualTo(beforeWindow);
  }
}
