package io.fffs.namenode.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.CommonProtos.BlockLastEntryProto;
import io.fffs.common.proto.NamenodeEditsProtos.AddBlockOp;
import io.fffs.common.proto.NamenodeEditsProtos.CompleteOp;
import io.fffs.common.proto.NamenodeEditsProtos.CreateOp;
import io.fffs.common.proto.NamenodeEditsProtos.DeleteOp;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.FsyncOp;
import io.fffs.common.proto.NamenodeEditsProtos.GcBatchOp;
import io.fffs.common.proto.NamenodeEditsProtos.GcKeepProto;
import io.fffs.common.proto.NamenodeEditsProtos.MkdirsOp;
import io.fffs.common.proto.NamenodeEditsProtos.PinOp;
import io.fffs.common.proto.NamenodeEditsProtos.SetRetentionOp;
import io.fffs.common.time.HlcTimestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One inode's keep is applied in batches of about the budget too: a file with thousands of versions, a name bound
 * thousands of times and a directory of a thousand names, collected with a budget of 16 units, give write-lock
 * batches (logged {@code GcBatchOp}s, applied through the edit path as followers and replay apply them) that each go
 * through at most about the budget, and leave exactly what one unbounded pass leaves, with every pinned and
 * retained moment reading as before.
 */
class GcLargeInodeTest {
  private static final long START_MICROS = 1_763_719_200_000_000L;
  private static final long MILLI = 1_000L;
  private static final int VERSIONS = 3_000;
  private static final int REBINDS = 1_500;
  private static final int NAMES = 1_000;
  private static final int BUDGET = 16;

  /** The namespace, built the same way each time. */
  private static final class Built {
    final Namespace namespace = Namespace.format("cluster-7", "admin", "supergroup", (short) 0755);
    final NamespaceApplier applier = new NamespaceApplier(namespace);
    final List<String> paths = new ArrayList<>();
    final long[] moments = new long[6];
    long micros = START_MICROS;
    long now;

    Built() throws Exception {
      apply(EditOpProto.newBuilder().setMkdirs(MkdirsOp.newBuilder().setPath("/d").addInodeIds(
          namespace.allocateInodeId()).setPermission(0755).setOwner("admin").setGroup("supergroup")).build());
      apply(EditOpProto.newBuilder().setSetRetention(SetRetentionOp.newBuilder().setPath("/d")
          .setRule(RetentionRule.parse("1s").toProto())).build());
      long big = create("/d/big");
      long block = namespace.allocateBlockId();
      apply(EditOpProto.newBuilder().setAddBlock(AddBlockOp.newBuilder().setInodeId(big).setBlockId(block)
          .setDatanodeUuid("dn-1")).build());
      for (int v = 0; v < VERSIONS; v++) {
        apply(EditOpProto.newBuilder().setFsync(FsyncOp.newBuilder().setInodeId(big).setBlockId(block)
            .setLength(v + 1)).build());
        if (v == VERSIONS / 3) {
          moments[0] = micros;
          pin("early", "/d/big", micros);
        }
      }
      moments[1] = micros;
      for (int r = 0; r < REBINDS; r++) {  // each binds /d/churn to a new file with a block and a last entry
        long inode = create("/d/churn");
        long churnBlock = namespace.allocateBlockId();
        apply(EditOpProto.newBuilder().setAddBlock(AddBlockOp.newBuilder().setInodeId(inode).setBlockId(churnBlock)
            .setDatanodeUuid("dn-1")).build());
        apply(EditOpProto.newBuilder().setFsync(FsyncOp.newBuilder().setInodeId(inode).setBlockId(churnBlock)
            .setLength(r).addLastEntries(BlockLastEntryProto.newBuilder().setBlockId(churnBlock)
                .setLastEntryHlc(HlcTimestamp.of(micros, 0).packed()))).build());
        apply(EditOpProto.newBuilder().setComplete(CompleteOp.newBuilder().setInodeId(inode)
            .setLastBlockId(churnBlock).setLastBlockLength(r)).build());
        if (r == REBINDS / 2) {
          moments[2] = micros;
          pin("middle", "/d", micros);
        }
      }
      moments[3] = micros;
      for (int n = 0; n < NAMES; n++) {
        create("/d/n" + n);
      }
      for (int n = 0; n < NAMES; n += 2) {
        apply(EditOpProto.newBuilder().setDelete(DeleteOp.newBuilder().setPath("/d/n" + n)).build());
      }
      moments[4] = micros;
      now = micros + 1_200 * MILLI;
      moments[5] = now - 300 * MILLI;
    }

    private long create(String path) {
      paths.add(path);
      long inode = namespace.allocateInodeId();
      apply(EditOpProto.newBuilder().setCreate(CreateOp.newBuilder().setPath(path).setInodeId(inode)
          .setPermission(0644).setOwner("admin").setGroup("supergroup").setReplication(1).setBlockSize(1 << 20)
          .setClientName("writer")).build());
      return inode;
    }

    private void pin(String name, String path, long at) {
      apply(EditOpProto.newBuilder().setPin(PinOp.newBuilder().setPin(new Pin(name, path, at, "admin").toProto()))
          .build());
    }

    void apply(EditOpProto op) {
      micros += 200;
      applier.apply(op, HlcTimestamp.of(micros, 0));
    }

    Map<String, String> answers(long... at) throws Exception {
      return GcResults.answers(namespace, paths, at);
    }

    /** Every inode whole, and the blocks' last entries. */
    List<String> dump() {
      List<String> dump = GcResults.dump(namespace, namespace.nextInodeId());
      dump.add("last entries " + new java.util.TreeSet<>(namespace.lastEntries().blockIds()));
      return dump;
    }
  }

  @Test
  void oneInodesKeepGoesInBatchesOfTheBudgetAndDropsWhatOneUnboundedPassDrops() throws Exception {
    RetentionRule clusterDefault = RetentionRule.parse("2s");
    Built whole = new Built();
    Built stepped = new Built();
    Built replayed = new Built();
    Map<String, String> before = stepped.answers(stepped.moments);
    GcPass.Result reference = GcPass.run(whole.namespace, HlcTimestamp.of(whole.now, 0), clusterDefault);

    List<Integer> readHolds = new ArrayList<>();
    GcPass.Locked counting = step -> readHolds.add(step.run());
    List<GcPass.Keep> plan = GcPass.plan(stepped.namespace, stepped.now, clusterDefault, BUDGET, counting);
    assertThat(plan.stream().mapToInt(GcPass.Keep::units).max().orElseThrow())
        .as("one inode's keep goes through far more than the budget").isGreaterThan(100 * BUDGET);

    // Each batch as HistoryOps logs it: built, then applied through the edit path, under one write-lock hold.
    List<EditOpProto> logged = new ArrayList<>();
    List<Integer> writeHolds = new ArrayList<>();
    long stamp = HlcTimestamp.of(stepped.now, 0).packed();
    GcBatches batches = new GcBatches(plan, BUDGET);
    long versions = 0;
    long names = 0;
    while (!batches.done()) {
      GcBatches.Batch batch = batches.next(stepped.namespace);
      if (batch == null) {
        break;
      }
      EditOpProto op = EditOpProto.newBuilder().setGcBatch(batch.op()).build();
      writeHolds.add(decided(stepped.namespace, op.getGcBatch()));
      assertThat(batch.units()).as("the units a batch says it goes through").isGreaterThanOrEqualTo(
          writeHolds.get(writeHolds.size() - 1));
      logged.add(op);
      stepped.applier.apply(op, HlcTimestamp.valueOf(++stamp));
      GcPass.Result done = stepped.applier.lastGcResult();
      versions += done.versionsDropped();
      names += done.namesDropped();
    }
    List<Long> unreachable = GcPass.unreachable(stepped.namespace, BUDGET, counting);
    List<Long> removed = new ArrayList<>();
    for (int from = 0; from < unreachable.size(); from += BUDGET) {
      EditOpProto op = EditOpProto.newBuilder().setGcBatch(GcBatchOp.newBuilder().addAllRemoveInodeIds(
          unreachable.subList(from, Math.min(unreachable.size(), from + BUDGET)))).build();
      logged.add(op);
      writeHolds.add(op.getGcBatch().getRemoveInodeIdsCount());
      stepped.applier.apply(op, HlcTimestamp.valueOf(++stamp));
      removed.addAll(stepped.applier.lastGcResult().removedInodeIds());
    }
    List<Long> forget = GcPass.unreferencedEntries(stepped.namespace, BUDGET, counting);
    assertThat(forget).as("the blocks of the files /d/churn named before the window").hasSizeGreaterThan(100);
    for (int from = 0; from < forget.size(); from += BUDGET) {
      int to = Math.min(forget.size(), from + BUDGET);
      EditOpProto op = EditOpProto.newBuilder().setGcBatch(GcBatchOp.newBuilder()
          .addAllForgetLastEntries(forget.subList(from, to)).setLast(to == forget.size()).setLastEntriesListed(true))
          .build();
      logged.add(op);
      writeHolds.add(op.getGcBatch().getForgetLastEntriesCount());
      stepped.applier.apply(op, HlcTimestamp.valueOf(++stamp));
    }

    assertThat(reference.versionsDropped()).as("the pass drops versions").isGreaterThan(VERSIONS / 2);
    assertThat(reference.inodesRemoved()).as("and inodes").isGreaterThan(REBINDS / 2);
    assertThat(versions).isEqualTo(reference.versionsDropped());
    assertThat(names).isEqualTo(reference.namesDropped());
    assertThat(removed).containsExactlyInAnyOrderElementsOf(reference.removedInodeIds());
    assertThat(stepped.dump()).isEqualTo(whole.dump());
    assertThat(stepped.namespace.lastGcHlc()).isEqualTo(HlcTimestamp.valueOf(stamp).packed());

    assertThat(writeHolds).as("no write-lock hold goes through more than about the budget")
        .allSatisfy(units -> assertThat(units).isLessThan(2 * BUDGET));
    assertThat(writeHolds.size()).as("one inode's work is cut into many batches")
        .isGreaterThan((VERSIONS + REBINDS + NAMES) / BUDGET);
    assertThat(readHolds).as("nor does a read-lock hold of the plan, the scans or the versions walk")
        .allSatisfy(units -> assertThat(units).isLessThanOrEqualTo(BUDGET + REBINDS + 1));

    assertThat(stepped.answers(stepped.moments)).as("pinned moments and the window read as before")
        .isEqualTo(before);

    long replayStamp = HlcTimestamp.of(replayed.now, 0).packed();
    for (EditOpProto op : logged) {
      replayed.applier.apply(op, HlcTimestamp.valueOf(++replayStamp));
    }
    assertThat(replayed.dump()).as("the logged batches replayed (a follower, a restart)").isEqualTo(whole.dump());
  }

  @Test
  void aFileThatGrewWhileThePassRanIsCutIntoPartsToo() throws Exception {
    Namespace namespace = Namespace.format("cluster-7", "admin", "supergroup", (short) 0755);
    NamespaceApplier applier = new NamespaceApplier(namespace);
    long[] micros = {START_MICROS};
    java.util.function.Consumer<EditOpProto> apply = op -> applier.apply(op, HlcTimestamp.of(micros[0] += 200, 0));
    long file = namespace.allocateInodeId();
    long block = namespace.allocateBlockId();
    apply.accept(EditOpProto.newBuilder().setCreate(CreateOp.newBuilder().setPath("/grown").setInodeId(file)
        .setPermission(0644).setOwner("admin").setGroup("supergroup").setReplication(1).setBlockSize(1 << 20)
        .setClientName("writer")).build());
    apply.accept(EditOpProto.newBuilder().setAddBlock(AddBlockOp.newBuilder().setInodeId(file).setBlockId(block)
        .setDatanodeUuid("dn-1")).build());
    List<GcPass.Keep> plan = GcPass.plan(namespace, micros[0], RetentionRule.parse("1s"), BUDGET, GcPass.DIRECT);
    for (int v = 0; v < 20 * BUDGET; v++) {  // a writer hsyncs while the pass runs
      apply.accept(EditOpProto.newBuilder().setFsync(FsyncOp.newBuilder().setInodeId(file).setBlockId(block)
          .setLength(v + 1)).build());
    }
    GcBatches batches = new GcBatches(plan, BUDGET);
    List<Integer> writeHolds = new ArrayList<>();
    for (GcBatches.Batch batch = batches.next(namespace); batch != null; batch = batches.next(namespace)) {
      writeHolds.add(decided(namespace, batch.op().build()));
      applier.apply(EditOpProto.newBuilder().setGcBatch(batch.op()).build(), HlcTimestamp.of(micros[0] += 200, 0));
    }
    assertThat(plan).extracting(GcPass.Keep::units).as("planned small").allSatisfy(units ->
        assertThat(units).isLessThan(BUDGET));
    assertThat(writeHolds).as("applied in parts of the budget").hasSizeGreaterThan(10)
        .allSatisfy(units -> assertThat(units).isLessThanOrEqualTo(BUDGET));
    assertThat(namespace.inode(file).states().size()).as("every version is in the window")
        .isEqualTo(1 + 20 * BUDGET + 1);
  }

  /** The inodes, versions and name entries applying {@code batch} decides, counted on the namespace before. */
  private static int decided(Namespace namespace, GcBatchOp batch) {
    int units = 0;
    for (GcKeepProto keep : batch.getKeepList()) {
      Inode inode = namespace.inode(keep.getInodeId());
      GcPass.Part part = GcBatches.partOf(keep);
      if (inode == null) {
        continue;
      }
      if (part == null) {
        units += 1 + inode.states().size()
            + inode.children().values().stream().mapToInt(ChildHistory::size).sum();
      } else if (part.states()) {
        units += count(inode.states().firstAtOrAfter(part.fromHlc()), part.toHlc() == Long.MAX_VALUE
            ? inode.states().size() : inode.states().firstAtOrAfter(part.toHlc()));
      } else {
        for (ChildHistory history : inode.children().subMap(part.namesFrom(), true, part.namesTo(), true)
            .values()) {
          units += count(history.firstAtOrAfter(part.fromHlc()), part.toHlc() == Long.MAX_VALUE ? history.size()
              : history.firstAtOrAfter(part.toHlc()));
        }
      }
    }
    return units;
  }

  private static int count(int from, int to) {
    return Math.max(0, to - from);
  }
}
