package io.fffs.namenode.fs;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.NamenodeEditsProtos.AddBlockOp;
import io.fffs.common.proto.NamenodeEditsProtos.CompleteOp;
import io.fffs.common.proto.NamenodeEditsProtos.CreateOp;
import io.fffs.common.proto.NamenodeEditsProtos.DeleteOp;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.MkdirsOp;
import io.fffs.common.proto.NamenodeEditsProtos.RenameOp;
import io.fffs.common.proto.NamenodeEditsProtos.SetReplicationOp;
import io.fffs.common.proto.NamenodeEditsProtos.TruncateOp;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.namenode.blocks.ReplicationMonitor.Want;
import io.fffs.namenode.namespace.GcPass;
import io.fffs.namenode.namespace.GcSteps;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.InodeState;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.namespace.NamespaceApplier;
import io.fffs.namenode.namespace.VersionChain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.Test;

/**
 * The replication scan reads the namespace in bounded read-lock steps: over ~450 files with a budget of 16 units no
 * hold reads more than the budget and one file's versions and blocks, and the scan wants what one read under one
 * hold wants; files created, renamed, deleted or changed between the holds never have a block wanted in a way that
 * lets the monitor drop a replica of it (marked open, or left to its writer).
 */
class ReplicationScanStepsTest {
  private static final long START_MICROS = 1_763_719_200_000_000L;
  private static final int DIRECTORIES = 10;
  private static final int FILES = 40;
  private static final int BUDGET = 16;
  /** Blocks with a damaged replica: their files' paths are named. */
  private static final LongPredicate DAMAGED = blockId -> blockId % 37 == 0;

  /** Closed, overwritten, truncated, deleted and open files, one deleted while open; built the same way each time. */
  static final class Built {
    final Namespace namespace = Namespace.format("cluster-7", "admin", "supergroup", (short) 0755);
    final NamespaceApplier applier = new NamespaceApplier(namespace);
    long micros = START_MICROS;
    long deletedWhileOpen;

    Built() {
      for (int d = 0; d < DIRECTORIES; d++) {
        apply(EditOpProto.newBuilder().setMkdirs(MkdirsOp.newBuilder().setPath("/d" + d)
            .addInodeIds(namespace.allocateInodeId()).setPermission(0755).setOwner("admin").setGroup("supergroup"))
            .build());
        for (int f = 0; f < FILES; f++) {
          String path = "/d" + d + "/f" + (f < 10 ? "0" : "") + f;
          long inode = write(path, 1 + f % 3, 1 + d % 3, true);
          if (f % 10 == 1) {
            write(path, 1, 2, true);  // overwritten: the first inode's blocks only history lists
          } else if (f % 10 == 2) {
            apply(EditOpProto.newBuilder().setTruncate(TruncateOp.newBuilder().setInodeId(inode).setNewLength(1))
                .build());
          } else if (f % 10 == 3) {
            apply(EditOpProto.newBuilder().setDelete(DeleteOp.newBuilder().setPath(path)).build());
          }
        }
        long open = write("/d" + d + "/open", 2, 2, false);
        if (d == 4) {
          deletedWhileOpen = open;
        }
      }
      apply(EditOpProto.newBuilder().setDelete(DeleteOp.newBuilder().setPath("/d4/open")).build());
    }

    /** Creates {@code path} with {@code blocks} blocks of 10 bytes, closed or still being written; its inode. */
    long write(String path, int blocks, int replication, boolean close) {
      long inode = namespace.allocateInodeId();
      apply(EditOpProto.newBuilder().setCreate(CreateOp.newBuilder().setPath(path).setInodeId(inode)
          .setPermission(0644).setOwner("admin").setGroup("supergroup").setReplication(replication)
          .setBlockSize(1 << 20).setClientName("writer")).build());
      long block = 0;
      for (int b = 0; b < blocks; b++) {
        block = addBlock(inode, b > 0);
      }
      if (close) {
        apply(EditOpProto.newBuilder().setComplete(CompleteOp.newBuilder().setInodeId(inode).setLastBlockId(block)
            .setLastBlockLength(10)).build());
      }
      return inode;
    }

    long addBlock(long inode, boolean afterAnother) {
      long block = namespace.allocateBlockId();
      AddBlockOp.Builder op = AddBlockOp.newBuilder().setInodeId(inode).setBlockId(block).setDatanodeUuid("dn-1");
      if (afterAnother) {
        op.setPreviousLength(10);
      }
      apply(EditOpProto.newBuilder().setAddBlock(op).build());
      return block;
    }

    void apply(EditOpProto op) {
      micros += 1_000;
      applier.apply(op, HlcTimestamp.of(micros, 0));
    }

    Inode at(String path) throws Exception {
      return namespace.resolve(path, Namespace.LATEST);
    }

    ReplicationScan scan(int budget, GcPass.Locked locked) throws Exception {
      ReplicationScan scan = new ReplicationScan(namespace, () -> HlcTimestamp.of(micros, 0).packed(), DAMAGED);
      GcSteps.run(scan, budget, locked);
      return scan;
    }
  }

  /** The scan as one hold read it before it read in steps: paths now, then every version of every file. */
  private static List<Want> oneHold(Namespace namespace, List<Long> open) {
    List<Want> all = new ArrayList<>();
    namespace.forEachLatestFile(namespace.root(), file -> {
      InodeState state = file.latest();
      int closed = state.isUnderConstruction() ? Math.max(0, state.blockCount() - 1) : state.blockCount();
      if (closed < state.blockCount()) {
        open.add(state.blockId(closed));
      }
      for (int i = 0; i < closed; i++) {
        all.add(new Want(state.blockId(i), state.replication(),
            DAMAGED.test(state.blockId(i)) ? namespace.pathOf(file) : null, state.isUnderConstruction()));
      }
    });
    Set<Long> seen = new HashSet<>(open);
    all.forEach(want -> seen.add(want.blockId()));
    for (Inode inode : namespace.inodes()) {
      InodeState latest = inode.latest();
      // A file being written that no path reaches (deleted while open): its last block is its writer's still.
      if (!inode.isDirectory() && latest.isUnderConstruction() && latest.blockCount() > 0
          && seen.add(latest.blockId(latest.blockCount() - 1))) {
        open.add(latest.blockId(latest.blockCount() - 1));
      }
      VersionChain<InodeState> states = inode.states();
      for (int v = states.size() - 1; v >= 0 && !inode.isDirectory(); v--) {
        for (int b = 0; b < states.value(v).blockCount(); b++) {
          if (seen.add(states.value(v).blockId(b))) {
            all.add(new Want(states.value(v).blockId(b), states.value(v).replication()));
          }
        }
      }
    }
    return all;
  }

  @Test
  void aScanReadsInBoundedHoldsAndWantsWhatOneHoldWants() throws Exception {
    Built built = new Built();
    List<Long> open = new ArrayList<>();
    List<Want> reference = oneHold(built.namespace, open);
    // A step stops between names and between files: it may pass the budget by one file's versions and blocks.
    int overshoot = 2 + built.namespace.inodes().stream().filter(inode -> !inode.isDirectory())
        .mapToInt(inode -> {
          int units = 1;
          for (int v = 0; v < inode.states().size(); v++) {
            units += 1 + inode.states().value(v).blockCount();
          }
          return units;
        }).max().orElseThrow();

    List<Integer> holds = new ArrayList<>();
    ReplicationScan stepped = built.scan(BUDGET, step -> holds.add(step.run()));
    ReplicationScan whole = built.scan(Integer.MAX_VALUE, step -> step.run());

    assertThat(built.namespace.inodeCount()).isGreaterThan(DIRECTORIES * FILES);
    assertThat(reference.stream().filter(Want::open)).as("blocks of open files").hasSize(DIRECTORIES - 1);
    assertThat(reference.stream().filter(want -> want.path() != null)).as("files named for a damaged replica")
        .isNotEmpty();
    assertThat(reference).hasSizeGreaterThan(DIRECTORIES * FILES);
    assertThat(stepped.wants()).isEqualTo(reference);
    assertThat(stepped.open()).isEqualTo(open).as("the one deleted while open too").hasSize(DIRECTORIES);
    assertThat(whole.wants()).isEqualTo(reference);
    assertThat(whole.open()).isEqualTo(open);

    long units = holds.stream().mapToLong(Integer::intValue).sum();
    assertThat(units).as("every name and inode read once at least").isGreaterThan(2L * built.namespace.inodeCount());
    assertThat(holds).as("no hold reads more than the budget and one file's versions and blocks")
        .allSatisfy(hold -> assertThat(hold).isLessThan(BUDGET + overshoot));
    assertThat(holds.size()).isGreaterThanOrEqualTo((int) (units / (BUDGET + overshoot)));
  }

  @Test
  void changesBetweenHoldsNeverLetABlockOfAChangedFileBeThinned() throws Exception {
    Built built = new Built();
    Built twin = new Built();
    long created = built.namespace.nextInodeId();
    long grown = built.at("/d7/open").id();
    long lowered = built.at("/d8/f05").id();
    Set<Long> createdBlocks = new HashSet<>();
    int[] hold = {0};
    ReplicationScan scan = built.scan(BUDGET, step -> {
      step.run();
      switch (hold[0]++) {
        case 0 -> {
          // behind the cursor in /d0, and a file moved there from a directory not yet read
          long inode = built.write("/d0/a-new", 2, 1, false);
          for (long block : built.namespace.inode(inode).latest().blockIds()) {
            createdBlocks.add(block);
          }
          built.apply(EditOpProto.newBuilder().setRename(RenameOp.newBuilder().setSrc("/d9/open")
              .setDst("/d0/a-moved")).build());
          built.apply(EditOpProto.newBuilder().setDelete(DeleteOp.newBuilder().setPath("/d5/f00")).build());
          built.apply(EditOpProto.newBuilder().setDelete(DeleteOp.newBuilder().setPath("/d6/open")).build());
        }
        case 1 -> {
          built.addBlock(grown, true);
          built.apply(EditOpProto.newBuilder().setSetReplication(SetReplicationOp.newBuilder().setPath("/d8/f05")
              .setReplication(1)).build());
        }
        default -> { }
      }
    });
    ReplicationScan reference = twin.scan(Integer.MAX_VALUE, step -> step.run());

    Set<Long> changed = Set.of(grown, lowered);
    Map<Long, Long> owner = new HashMap<>();
    for (Inode inode : built.namespace.inodes()) {
      for (int v = 0; v < inode.states().size(); v++) {
        for (long block : inode.states().value(v).blockIds()) {
          owner.put(block, inode.id());
        }
      }
    }
    Map<Long, Want> stepped = new HashMap<>();
    scan.wants().forEach(want -> stepped.put(want.blockId(), want));
    Map<Long, Want> unchanged = new HashMap<>(stepped);
    unchanged.keySet().removeIf(block -> owner.get(block) >= created || changed.contains(owner.get(block)));
    Map<Long, Want> expected = new HashMap<>();
    reference.wants().forEach(want -> expected.put(want.blockId(), want));
    expected.keySet().removeIf(block -> changed.contains(owner.get(block)));

    assertThat(hold[0]).isGreaterThan(20);
    assertThat(unchanged).as("files no change touched: as one hold at the start wants them").isEqualTo(expected);
    assertThat(scan.open()).as("the open files (one moved, one deleted meanwhile) stay their writers'")
        .containsAll(reference.open().stream().filter(block -> owner.get(block) != grown).toList());
    stepped.forEach((block, want) -> {
      if (owner.get(block) >= created || changed.contains(owner.get(block))) {
        assertThat(want.open()).as("block %d of a file created or changed meanwhile", block).isTrue();
      }
    });
    long grownLast = built.namespace.inode(grown).latest().blockId(2);
    assertThat(scan.open()).as("the block added meanwhile is its writer's").contains(grownLast);
    assertThat(stepped).as("a block written meanwhile").doesNotContainKey(grownLast);
    createdBlocks.forEach(block -> assertThat(stepped.get(block) == null || stepped.get(block).open())
        .as("block %d of a file created meanwhile", block).isTrue());
    assertThat(stepped.get(built.namespace.inode(lowered).latest().blockId(0)))
        .as("a file whose replication changed meanwhile keeps its replicas this scan")
        .satisfies(want -> assertThat(want.open()).isTrue());
  }

  /**
   * A garbage-collection batch applied while the paths are read may drop the name that reached a file being written
   * (renamed since), so then every file being written that no path reached has its last block left to its writer.
   */
  @Test
  void aGcBatchWhilePathsAreReadLeavesTheLastBlockOfEveryFileBeingWrittenToItsWriter() throws Exception {
    Built built = new Built();
    Inode deletedWhileOpen = built.namespace.inode(built.deletedWhileOpen);
    assertThat(deletedWhileOpen.latest().isUnderConstruction()).isTrue();
    long last = deletedWhileOpen.latest().blockId(1);
    ReplicationScan quiet = built.scan(BUDGET, step -> step.run());
    long first = deletedWhileOpen.latest().blockId(0);
    assertThat(quiet.wants()).as("no batch ran: wanted as its history is")
        .contains(new Want(first, deletedWhileOpen.latest().replication()));
    assertThat(quiet.open()).as("but its last block, which its writer may still write").contains(last);
    assertThat(quiet.wants()).noneMatch(want -> want.blockId() == last);

    int[] hold = {0};
    ReplicationScan scan = built.scan(BUDGET, step -> {
      step.run();
      if (hold[0]++ == 0) {
        GcPass.apply(built.namespace, List.of());
      }
    });
    assertThat(scan.open()).contains(last);
    assertThat(scan.wants()).noneMatch(want -> want.blockId() == last);
    assertThat(scan.wants()).as("its closed block is not thinned either")
        .contains(new Want(first, deletedWhileOpen.latest().replication(), null, true))
        .noneMatch(want -> want.blockId() == first && !want.open());
  }
}
