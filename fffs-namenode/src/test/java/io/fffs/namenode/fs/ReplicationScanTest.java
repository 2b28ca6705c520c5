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
   * Between scans (far apart on a large namespace) the monitor goes on copying what the last scan found short, one
   * copy per source and round here, through garbage-collection passes that drop nothing, until one drops history: a
   * block the scan wanted may be gone then, so the copies wait for the next scan.
   */
  @Test
  void copiesGoOnBetweenScansUntilHistoryIsCollected() throws Exception {
    Configuration conf = NamesystemFixture.conf();
    conf.set(NameNodeConfigKeys.REPLICATION_INTERVAL_KEY, "1h");
    conf.setInt(NameNodeConfigKeys.REPLICATION_MAX_STREAMS_KEY, 1);
    conf.set(NameNodeConfigKeys.HISTORY_GC_INTERVAL_KEY, "0");  // passes only when the test runs them
    try (NamesystemFixture nn = new NamesystemFixture(dir, conf)) {
      for (int length = 1; length <= 2; length++) {
        long blockId = nn.writeFile("/g/f", length);
        nn.fs.datanodes().blocksReceived("dn-1", new long[] {blockId}, new long[] {length});
      }
      nn.fs.history.setRetention(ADMIN, "/g", RetentionRule.parse("1h")).await();
      nn.fs.collectHistory(null);  // what no moment sees goes now; the next pass under this rule drops nothing
      List<Long> blocks = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
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

      nn.fs.scanReplication();
      nn.fs.scanReplication();
      List<Long> copied = new ArrayList<>(copiesFromDn1(nn));
      assertThat(copied).as("the scans' round").hasSize(1);
      nn.fs.topUpReplication();
      assertThat(copiesFromDn1(nn)).as("the next round, between scans").hasSize(1)
          .doesNotContainAnyElementsOf(copied).allSatisfy(copied::add);

      GcPass.Result nothing = nn.fs.collectHistory(null);
      assertThat(nothing.versionsDropped() + nothing.namesDropped() + nothing.inodesRemoved()).isZero();
      nn.fs.topUpReplication();
      assertThat(copiesFromDn1(nn)).as("a pass that dropped nothing").hasSize(1)
          .doesNotContainAnyElementsOf(copied).allSatisfy(copied::add);

      nn.fs.history.setRetention(ADMIN, "/g", RetentionRule.parse("1s")).await();
      nn.advance(10_000_000);
      GcPass.Result collected = nn.fs.collectHistory(null);
      assertThat(collected.versionsDropped()).as("a garbage-collection batch ran").isPositive();
      nn.fs.topUpReplication();
      assertThat(copiesFromDn1(nn)).as("history collected since the scan began: no copies until the next scan")
          .isEmpty();

      nn.fs.scanReplication();
      assertThat(copiesFromDn1(nn)).hasSize(1).doesNotContainAnyElementsOf(copied).allSatisfy(copied::add);
      nn.fs.topUpReplication();
      assertThat(copiesFromDn1(nn)).hasSize(1).doesNotContainAnyElementsOf(copied).allSatisfy(copied::add);
      assertThat(copied).containsExactlyInAnyOrderElementsOf(blocks);
    }
  }

  private static List<Long> copiesFromDn1(NamesystemFixture nn) {
    return nn.fs.replication.takeTransfers("dn-1").stream().map(BlockTransferProto::getBlockId).toList();
  }
}
