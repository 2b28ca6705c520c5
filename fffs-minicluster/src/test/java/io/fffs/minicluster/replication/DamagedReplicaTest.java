package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.datanode.store.persist.SegmentFormat;
import io.fffs.minicluster.MiniFffsCluster;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A damaged replica is repaired, not fatal: bytes flipped in a record of one replica's segment file make that
 * DataNode quarantine the block at its restart (it starts, and serves its other blocks); the NameNode stops listing
 * the replica, copies the block's history from a good one and has the damaged one dropped; past reads stay
 * byte-identical on every listed replica.
 */
class DamagedReplicaTest {
  @TempDir
  Path base;

  @Test
  void aReplicaWithAFlippedRecordIsQuarantinedAndReplacedWithItsHistory() throws Exception {
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, ReReplicationTest.conf(3), 4);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      Random random = new Random(27);
      long[] window = ReReplicationTest.writeHistory(fs, random);
      LocatedBlocksProto blocks = replicas.awaitListed(ReReplicationTest.FILE, 3);
      List<ReReplicationTest.PastRead> reads = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        reads.add(ReReplicationTest.readEverywhere(replicas, window, random));
      }

      LocatedBlockProto damagedBlock = blocks.getBlocks(0);
      long blockId = damagedBlock.getBlock().getBlockId();
      String victimUuid = damagedBlock.getLocations(0).getDatanodeUuid();
      int victim = indexOf(cluster, victimUuid);
      cluster.stopDataNode(victim);
      Path dataDir = base.resolve("dn-" + victim).resolve("data");
      flipARecordOf(dataDir, blockId, DataNodeConfigKeys.pageSize(cluster.getConfiguration()), false);
      cluster.restartDataNode(victim);
      assertThat(cluster.getDataNode(victim).store().quarantined()).as("the DataNode started, block set aside")
          .contains(blockId);
      for (LocatedBlockProto other : blocks.getBlocksList()) {
        if (other.getBlock().getBlockId() != blockId && holds(other, victimUuid)) {
          assertThat(cluster.getDataNode(victim).store().logEntries(other.getBlock().getBlockId()))
              .as("its other blocks keep their history").isNotEmpty();
        }
      }

      ReReplicationTest.awaitTrue(() -> {
        LocatedBlockProto now = replicas.blocks(ReReplicationTest.FILE, TimeSpec.latest()).getBlocks(0);
        return now.getLocationsCount() == 3 && !holds(now, victimUuid)
            && cluster.getDataNode(victim).store().quarantined().isEmpty();
      }, "block " + blockId + " on 3 good replicas and the damaged one dropped");
      LocatedBlocksProto healed = replicas.blocks(ReReplicationTest.FILE, TimeSpec.latest());
      replicas.assertSameLogs(healed.getBlocks(0));
      for (ReReplicationTest.PastRead read : reads) {
        LocatedBlockProto then = replicas.blocks(ReReplicationTest.FILE, read.time()).getBlocks(read.block());
        for (DatanodeIdProto replica : healed.getBlocks(read.block()).getLocationsList()) {
          Replicas.Answer answer = replicas.read(then, replica, read.offset(), read.length(), read.time());
          assertThat(answer.bytes()).isEqualTo(read.answer().bytes());
          assertThat(answer.resolvedHlc()).isEqualTo(read.answer().resolvedHlc());
        }
      }
    }
  }

  private static boolean holds(LocatedBlockProto block, String uuid) {
    return block.getLocationsList().stream().anyMatch(l -> l.getDatanodeUuid().equals(uuid));
  }

  private static int indexOf(MiniFffsCluster cluster, String uuid) {
    for (int i = 0; i < cluster.getNumDataNodes(); i++) {
      if (cluster.getDataNode(i).uuid().equals(uuid)) {
        return i;
      }
    }
    throw new AssertionError("no DataNode " + uuid);
  }

  /**
   * A reader that meets a damaged page reports the replica: bytes flipped in a page (which recovery does not check
   * in a cleanly closed file) are found by the DataNode when a read brings the page back from disk; the reader gets
   * the bytes from another replica and tells the NameNode, which replaces the damaged replica and drops it.
   */
  @Test
  void aReplicaAReaderFindsDamagedIsReportedAndReplaced() throws Exception {
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, ReReplicationTest.conf(3), 4);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      ReReplicationTest.writeHistory(fs, new Random(31));
      LocatedBlockProto listed = replicas.awaitListed(ReReplicationTest.FILE, 3).getBlocks(0);
      long blockId = listed.getBlock().getBlockId();
      // The block as its first write left it: the pages that write put on disk.
      io.fffs.datanode.store.BlockInfo first = replicas.store(listed.getLocations(0).getDatanodeUuid())
          .infoAtLogIndex(blockId, 1);
      TimeSpec then = TimeSpec.system(first.hlc().physicalMicros());
      // The replica a reader of that moment tries first is the damaged one.
      LocatedBlockProto damagedBlock = replicas.blocks(ReReplicationTest.FILE, then).getBlocks(0);
      String victimUuid = damagedBlock.getLocations(0).getDatanodeUuid();
      int victim = indexOf(cluster, victimUuid);
      String good = damagedBlock.getLocations(1).getDatanodeUuid();
      cluster.stopDataNode(victim);
      flipARecordOf(base.resolve("dn-" + victim).resolve("data"), blockId,
          DataNodeConfigKeys.pageSize(cluster.getConfiguration()), true);
      cluster.restartDataNode(victim);
      assertThat(cluster.getDataNode(victim).store().quarantined()).as("a page is not checked at recovery")
          .isEmpty();

      byte[] expected;
      try (io.fffs.datanode.store.ReadView view = replicas.store(good).read(blockId, 0, (int) first.length(), then)) {
        expected = view.toBytes();
      }
      byte[] read = new byte[(int) first.length()];
      try (org.apache.hadoop.fs.FSDataInputStream in = fs.open(
          new org.apache.hadoop.fs.Path(ReReplicationTest.FILE + "@s" + then.micros() / 1000 + "." + String.format(
              "%03d", then.micros() % 1000)))) {
        in.readFully(0, read);
      }
      assertThat(read).as("the reader got the bytes from a good replica").isEqualTo(expected);

      ReReplicationTest.awaitTrue(() -> {
        LocatedBlockProto now = replicas.blocks(ReReplicationTest.FILE, TimeSpec.latest()).getBlocks(0);
        return now.getLocationsCount() == 3 && !holds(now, victimUuid)
            && cluster.getDataNode(victim).store().logEntries(blockId).isEmpty();
      }, "block " + blockId + " replaced on a good DataNode and dropped on the damaged one");
      replicas.assertSameLogs(replicas.blocks(ReReplicationTest.FILE, TimeSpec.latest()).getBlocks(0));
    }
  }

  /**
   * Flips a byte in the record of the block's second entry (its first WRITE): of its HLC (the record then fails its
   * CRC), or of its first page.
   */
  private static void flipARecordOf(Path dataDir, long blockId, int pageSize, boolean page) throws Exception {
    for (Path file : SegmentFormat.list(dataDir)) {
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
        long pos = SegmentFormat.HEADER_BYTES;
        ByteBuffer prefix = ByteBuffer.allocate(SegmentFormat.PREFIX_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        while (pos + SegmentFormat.PREFIX_BYTES <= channel.size()) {
          prefix.clear();
          channel.read(prefix, pos);
          if (prefix.getInt(0) == SegmentFormat.PAD_MAGIC) {
            pos += prefix.getInt(4);
            continue;
          }
          if (prefix.getInt(0) != SegmentFormat.ENTRY_MAGIC) {
            break;
          }
          int pages = prefix.getInt(4);
          long body = pos + SegmentFormat.bodyOffset(pages, pageSize);
          ByteBuffer fields = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
          channel.read(fields, body);
          if (fields.getLong(0) == blockId && fields.getInt(8) == 1) {
            long at = page ? pos + SegmentFormat.PREFIX_BYTES + 3 : body + 20;
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, at);
            one.put(0, (byte) ~one.get(0)).flip();
            channel.write(one, at);
            return;
          }
          pos += SegmentFormat.recordBytes(pages, pageSize);
        }
      }
    }
    throw new AssertionError("no record of block " + blockId + " in " + dataDir);
  }
}
