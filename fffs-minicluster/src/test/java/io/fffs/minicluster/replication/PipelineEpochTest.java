package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.security.BlockTokenConfigKeys;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.datanode.store.LogEntry;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Write pipelines have epochs: once a newer pipeline opened a block on its DataNodes, a writer of an older one (a
 * writer that was replaced, still sending) changes nothing there — its packets are refused by the primary and never
 * reach the followers.
 */
class PipelineEpochTest {
  private static final long BLOCK_ID = 4242;

  @TempDir
  Path base;

  @Test
  void aWriterOfAnOlderPipelineChangesNothingOnceANewerOneOpenedTheBlock() throws Exception {
    Configuration conf = ReplicatedHistoryTest.conf(3);
    conf.setBoolean(BlockTokenConfigKeys.ENABLE_KEY, false);  // the block is written without the NameNode
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 3);
        DataTransferClient older = DataTransferClients.tcp(conf, clock(conf));
        DataTransferClient newer = DataTransferClients.tcp(conf, clock(conf))) {
      List<DatanodeIdProto> datanodes = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        datanodes.add(cluster.getDataNode(i).datanodeId());
      }
      WriteOptions options = new WriteOptions(0, null);
      BlockWriter stale = older.openWriter(datanodes, BLOCK_ID, null, options);
      stale.write(0, bytes(100, 1));
      stale.flush();

      try (BlockWriter current = newer.openWriter(datanodes, BLOCK_ID, null, options)) {
        current.write(100, bytes(100, 2));
        current.flush();
        List<List<LogEntry>> before = logs(cluster);

        stale.write(200, bytes(100, 3));
        assertThatThrownBy(stale::flush).isInstanceOf(IOException.class).hasMessageContaining("REPLICA_STALE");
        assertThat(logs(cluster)).as("no replica changed").isEqualTo(before);

        current.write(200, bytes(100, 4));
        current.flush();
      }
      List<List<LogEntry>> after = logs(cluster);
      assertThat(after.get(0)).hasSize(4);  // CREATE, WRITE, WRITE, WRITE
      assertThat(after).allMatch(log -> log.equals(after.get(0)));
      try {
        stale.close();
      } catch (IOException expected) {
        // its failure was seen above
      }
    }
  }

  private static HybridLogicalClock clock(Configuration conf) {
    return new HybridLogicalClock(PhysicalClock.system(), conf);
  }

  private static List<List<LogEntry>> logs(MiniFffsCluster cluster) throws IOException {
    List<List<LogEntry>> logs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      logs.add(cluster.getDataNode(i).store().logEntries(BLOCK_ID));
    }
    return logs;
  }

  private static ByteBuffer bytes(int length, int value) {
    byte[] bytes = new byte[length];
    java.util.Arrays.fill(bytes, (byte) value);
    return ByteBuffer.wrap(bytes);
  }
}
