package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.NameNodeConfigKeys;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A writer held dead after an hflush never sends REPLICA_END, so its followers keep following: each holds every
 * entry, yet refuses every time past its frontier. Once the file is closed (here by {@code recoverLease}), the
 * NameNode asks each of them to end the pipeline, so every replica answers times after the close, and the file stays
 * readable at any time when its primary is lost.
 */
class UnendedPipelineTest {
  private static final int LENGTH = 150_000;

  @TempDir
  Path base;

  @Test
  void followersOfAClosedFileWhoseWriterNeverEndedThemAnswerLaterTimes() throws Exception {
    Configuration conf = ReplicatedHistoryTest.conf(3);
    // Two scans in a row (3 s apart) before the NameNode asks: the followers are seen refusing first.
    conf.set(NameNodeConfigKeys.REPLICATION_INTERVAL_KEY, "3s");
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 3);
        FreezeFrameFileSystem writer = cluster.getFileSystem();
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/unended/f");
      byte[] data = new byte[LENGTH];
      new Random(35).nextBytes(data);
      FSDataOutputStream out = writer.create(file, true);
      out.write(data);
      out.hflush();
      assertThat(fs.recoverLease(file)).isTrue();
      long closed = ReplicatedHistoryTest.settle(fs);

      LocatedBlockProto block = replicas.awaitListed(file.toString(), 3).getBlocks(0);
      TimeSpec afterClose = TimeSpec.system(closed);
      long deadline = System.nanoTime() + 30_000_000_000L;
      List<String> refusing = refusing(replicas, block, afterClose, data);
      assertThat(refusing).as("both followers refuse; the primary stamps the block and answers").hasSize(2);
      String primary = block.getLocationsList().stream().filter(d -> !refusing.contains(address(d)))
          .findFirst().orElseThrow().getDatanodeUuid();
      while (!refusing.isEmpty()) {
        assertThat(System.nanoTime()).as("every follower answers %s within 30 s; still refusing: %s", afterClose,
            refusing).isLessThan(deadline);
        Thread.sleep(50);
        refusing.clear();
        refusing.addAll(refusing(replicas, block, afterClose, data));
      }

      // The followers now answer alone: the primary goes, and the file is read at the latest and a later time.
      cluster.stopDataNode(Replicas.index(cluster, primary));
      long later = ReplicatedHistoryTest.settle(fs);
      try (FSDataInputStream in = fs.open(file, TimeSpec.system(later))) {
        assertThat(in.readAllBytes()).isEqualTo(data);
      }
      try (FSDataInputStream in = fs.open(file)) {
        assertThat(in.readAllBytes()).isEqualTo(data);
      }
      try {
        out.close();
      } catch (java.io.IOException expected) {
        // the writer was fenced by the recovery: nothing it still held is written
      }
    }
  }

  private static String address(DatanodeIdProto datanode) {
    return datanode.getHost() + ":" + datanode.getDataPort();
  }

  /** The replicas of {@code block} that refuse {@code time} as stale; the others must answer {@code data}. */
  private static List<String> refusing(Replicas replicas, LocatedBlockProto block, TimeSpec time, byte[] data)
      throws Exception {
    List<String> refusing = new ArrayList<>();
    for (DatanodeIdProto location : block.getLocationsList()) {
      try {
        assertThat(replicas.read(block, location, 0, data.length, time).bytes()).isEqualTo(data);
      } catch (FffsException e) {
        if (e.code() != ErrorCode.REPLICA_STALE) {
          throw e;
        }
        refusing.add(address(location));
      }
    }
    return refusing;
  }
}
