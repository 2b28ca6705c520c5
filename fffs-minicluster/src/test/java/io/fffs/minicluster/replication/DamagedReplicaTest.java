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
      flipARecordOf(dataDir, blockId, DataNodeConfigKeys.pageSize(cluster.getConfiguration()));
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

  /** Flips a byte of the HLC in the record of the block's second entry (its first WRITE). */
  private static void flipARecordOf(Path dataDir, long blockId, int pageSize) throws Exception {
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
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, body + 20);
            one.put(0, (byte) ~one.get(0)).flip();
            channel.write(one, body + 20);
            return;
          }
          pos += SegmentFormat.recordBytes(pages, pageSize);
        }
      }
    }
    throw new AssertionError("no record of block " + blockId + " in " + dataDir);
  }
}
