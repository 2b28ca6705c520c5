package io.fffs.namenode.fs;

import static io.fffs.namenode.fs.NamesystemFixture.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockTransferProto;
import io.fffs.namenode.NameNodeConfigKeys;
import io.fffs.namenode.namespace.GcPass;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replication monitor's scan of the namespace, run by hand (its schedule is an hour away). */
class ReplicationScanTest {
  @TempDir
  Path dir;

  /**
   * A file created and not yet given a block has no last block to leave out of the scan: the scan skips it and goes
   * on to find the other files' short blocks (it once read the block at index -1 and failed the whole pass).
   */
  @Test
  void anOpenFileWithNoBlockYetDoesNotStopTheScan() throws Exception {
    Configuration conf = NamesystemFixture.conf();
    conf.set(NameNodeConfigKeys.REPLICATION_INTERVAL_KEY, "1h");
    try (NamesystemFixture nn = new NamesystemFixture(dir, conf)) {
      FileStatusProto shortFile = nn.fs.files.create(ADMIN, "/short", 0644, "client-1", true, true, 2, 1 << 20,
          null).await();
      LocatedBlockProto block = nn.fs.files.addBlock(ADMIN, "/short", shortFile.getInodeId(), "client-1", null)
          .await();
      nn.fs.files.complete(ADMIN, "/short", shortFile.getInodeId(), "client-1",
          BlockProto.newBuilder().setBlockId(block.getBlock().getBlockId()).setNumBytes(10).build()).await();
      nn.fs.scanReplication();
      assertThat(nn.fs.replication.counts().underReplicated()).as("two replicas wanted, one DataNode").isEqualTo(1);

      nn.fs.files.create(ADMIN, "/a/open-without-blocks", 0644, "client-2", true, true, 1, 1 << 20, null).await();
      FileStatusProto second = nn.fs.files.create(ADMIN, "/z/short-too", 0644, "client-3", true, true, 3, 1 << 20,
          null).await();
      long secondBlock = nn.fs.files.addBlock(ADMIN, "/z/short-too", second.getInodeId(), "client-3", null).await()
          .getBlock().getBlockId();
      nn.fs.files.complete(ADMIN, "/z/short-too", second.getInodeId(), "client-3",
          BlockProto.newBuilder().setBlockId(secondBlock).setNumBytes(10).build()).await();
      nn.fs.scanReplication();
      assertThat(nn.fs.replication.counts().underReplicated()).as("both short blocks, past the open empty file")
          .isEqualTo(2);
    }
  }

  /**
   * Between scans (far apart on a large namespace) the monitor goes on copying what the last scan found short as
   * copies end (one at a time from dn-1 here), but not the blocks of a file reopened for writing, and through
   * garbage-collection passes that drop nothing or only directories' history, until one drops a file's version: a
   * block the scan wanted may be gone then, so the copies wait for the next scan.
   */
  @Test
  void copiesGoOnBetweenScansUntilAFilesHistoryIsCollected() throws Exception {
    Configuration conf = NamesystemFixture.conf();
    conf.set(NameNodeConfigKeys.REPLICATION_INTERVAL_KEY, "1h");
    conf.setInt(NameNodeConfigKeys.REPLICATION_MAX_STREAMS_KEY, 1);
    conf.set(NameNodeConfigKeys.HISTORY_GC_INTERVAL_KEY, "0");  // passes only when the test runs them
    try (NamesystemFixture nn = new NamesystemFixture(dir, conf)) {
      for (int length = 1; length <= 2; length++) {
        long blockId = nn.writeFile("/g/f", length);
        nn.fs.datanodes().blocksReceived("dn-1", new long[] {blockId}, new long[] {length});
        nn.advance(1_000_000);  // the first /g/f is seen for a second: kept until the rule says 1s
      }
      nn.fs.history.setRetention(ADMIN, "/g", RetentionRule.parse("1h")).await();
      nn.fs.directories.mkdirs(ADMIN, "/h/d", 0755, true).await();
      nn.fs.history.setRetention(ADMIN, "/h", RetentionRule.parse("1s")).await();
      nn.fs.collectHistory(null);  // what no moment sees goes now; the next pass under these rules drops nothing
      List<Long> blocks = new ArrayList<>();
      for (int i = 0; i < 7; i++) {
        String path = "/two/f" + i;
        FileStatusProto file = nn.fs.files.create(ADMIN, path, 0644, "client-1", true, true, 2, 1 << 20, null)
            .await();
        long blockId = nn.fs.files.addBlock(ADMIN, path, file.getInodeId(), "client-1", null).await().getBlock()
            .getBlockId();
        nn.fs.files.complete(ADMIN, path, file.getInodeId(), "client-1",
            BlockProto.newBuilder().setBlockId(blockId).setNumBytes(10).build()).await();
        nn.fs.datanodes().blocksReceived("dn-1", new long[] {blockId}, new long[] {10});
        blocks.add(blockId);
      }
      nn.fs.datanodes().register(DatanodeIdProto.newBuilder().setDatanodeUuid("dn-2").setHost("127.0.0.2")
          .setDataPort(50010).setIpcPort(0).build(), 1L << 30, 0);
      List<Long> copied = new ArrayList<>();

      nn.fs.scanReplication();
      nn.fs.scanReplication();
      assertThat(copyDone(nn, copied)).as("the scans' copy").isEqualTo(blocks.get(0));
      nn.fs.topUpReplication();
      assertThat(copyDone(nn, copied)).as("the next, between scans").isEqualTo(blocks.get(1));

      GcPass.Result nothing = nn.fs.collectHistory(null);
      assertThat(nothing.versionsDropped() + nothing.namesDropped() + nothing.inodesRemoved()).isZero();
      nn.fs.topUpReplication();
      assertThat(copyDone(nn, copied)).as("after a pass that dropped nothing").isEqualTo(blocks.get(2));

      nn.fs.directories.delete(ADMIN, "/h/d", false).await();
      nn.advance(10_000_000);
      GcPass.Result directories = nn.fs.collectHistory(null);
      assertThat(directories.namesDropped() + directories.inodesRemoved()).as("a directory's history dropped")
          .isPositive();
      nn.fs.topUpReplication();
      assertThat(copyDone(nn, copied)).as("after a pass that dropped only a directory's").isEqualTo(blocks.get(3));

      nn.fs.files.openForWrite(ADMIN, "/two/f4", "client-9").await();
      nn.fs.topUpReplication();
      assertThat(copyDone(nn, copied)).as("not the block of the file reopened for writing").isEqualTo(blocks.get(5));

      nn.fs.history.setRetention(ADMIN, "/g", RetentionRule.parse("1s")).await();
      GcPass.Result collected = nn.fs.collectHistory(null);
      assertThat(collected.versionsDropped() + collected.inodesRemoved()).as("the replaced /g/f collected")
          .isPositive();
      nn.fs.topUpReplication();
      assertThat(nn.fs.replication.takeTransfers("dn-1")).as("no copies until the next scan").isEmpty();

      nn.fs.scanReplication();
      assertThat(copyDone(nn, copied)).isEqualTo(blocks.get(6));
      assertThat(copied).containsExactly(blocks.get(0), blocks.get(1), blocks.get(2), blocks.get(3), blocks.get(5),
          blocks.get(6));
    }
  }

  /** The one copy dn-1 was asked for, which dn-2 then reports done; returns its block. */
  private static long copyDone(NamesystemFixture nn, List<Long> copied) throws Exception {
    List<Long> asked = copiesFromDn1(nn);
    assertThat(asked).hasSize(1);
    assertThat(copied).doesNotContain(asked.get(0));
    copied.add(asked.get(0));
    nn.fs.datanodes().blocksReceived("dn-2", new long[] {asked.get(0)}, new long[] {10});
    return asked.get(0);
  }

  private static List<Long> copiesFromDn1(NamesystemFixture nn) {
    return nn.fs.replication.takeTransfers("dn-1").stream().map(BlockTransferProto::getBlockId).toList();
  }
}
