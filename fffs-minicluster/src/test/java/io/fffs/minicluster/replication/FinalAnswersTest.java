package io.fffs.minicluster.replication;

import static io.fffs.minicluster.replication.ReplicatedHistoryTest.conf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Wait-until-past on replicas: while a block is being written, each replica is asked for the block as of "now" by
 * its own clock (one 120 ms ahead, one 100 ms behind). A replica may refuse (a follower whose frontier has not
 * reached that time), but every answer it gives is final: after the file is closed, the same question gets the same
 * bytes and the same entry.
 */
class FinalAnswersTest {
  private static final int BLOCK = 256 * 1024;

  @TempDir
  Path base;

  /** One answer given during the write: the block as of then, or null when it did not exist yet. */
  private record Asked(DatanodeIdProto replica, long micros, Replicas.Answer answer) {}

  @Test
  void answersGivenDuringTheWriteNeverChange() throws Exception {
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf(3)).numDataNodes(3)
        .memoryCapacity(64L << 20)
        .dataNodeClock(0, PhysicalClock.system().offsetBy(120_000))
        .dataNodeClock(1, PhysicalClock.system().offsetBy(-100_000))
        .build();
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/replicated/final.bin");
      Random random = new Random(34);
      List<Asked> asked = new ArrayList<>();
      int refused = 0;
      LocatedBlockProto block = null;
      try (FSDataOutputStream out = fs.create(file, true)) {
        for (int round = 0; round < 15; round++) {
          byte[] bytes = new byte[1 + random.nextInt(12_000)];
          random.nextBytes(bytes);
          out.write(bytes);
          out.hflush();
          if (block == null) {
            block = replicas.blocks(file.toString(), TimeSpec.latest()).getBlocks(0);  // its token
          }
          for (int i = 0; i < cluster.getNumDataNodes(); i++) {
            DatanodeIdProto replica = cluster.getDataNode(i).datanodeId();
            long now = cluster.getDataNode(i).clock().physicalClock().currentTimeMicros();
            try {
              asked.add(new Asked(replica, now, replicas.read(block, replica, 0, BLOCK, TimeSpec.system(now))));
            } catch (FffsException e) {
              if (e.code() == ErrorCode.NOT_FOUND) {
                asked.add(new Asked(replica, now, null));  // an answer too: the block did not exist then
                continue;
              }
              assertThat(e.code()).as("a refusal: %s", e.getMessage()).isIn(ErrorCode.REPLICA_STALE,
                  ErrorCode.TIME_IN_FUTURE);
              refused++;
            }
          }
        }
      }
      assertThat(asked.size()).as("answers given (%d refused)", refused).isGreaterThanOrEqualTo(15);
      for (Asked question : asked) {
        if (question.answer() == null) {
          LocatedBlockProto asOf = block;
          assertThatThrownBy(() -> replicas.read(asOf, question.replica(), 0, BLOCK,
              TimeSpec.system(question.micros()))).isInstanceOfSatisfying(FffsException.class,
                  e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
          continue;
        }
        Replicas.Answer again = replicas.read(block, question.replica(), 0, BLOCK,
            TimeSpec.system(question.micros()));
        assertThat(again.resolvedHlc()).as("entry at %d from %s", question.micros(),
            question.replica().getDatanodeUuid()).isEqualTo(question.answer().resolvedHlc());
        assertThat(again.bytes()).isEqualTo(question.answer().bytes());
      }
    }
  }
}
