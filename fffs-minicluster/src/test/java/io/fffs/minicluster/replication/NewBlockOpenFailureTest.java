package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.WriteFaultInjector;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every DataNode of a new block's pipeline unreachable when the stream opens its writer, part-way through a write
 * that crosses into the block: the write fails typed and the stream fails for good — even once the DataNode is back,
 * a later flush, write or close throws the same failure, and the file is not completed — as a retry of the call could
 * place the bytes it had sent before the failure a second time.
 */
class NewBlockOpenFailureTest {
  @TempDir
  Path base;

  @AfterEach
  void noFaults() {
    WriteFaultInjector.set(null);
  }

  @Test
  void aNewBlockWhosePipelineCannotBeReachedFailsTheStream() throws Exception {
    Configuration conf = ReplicatedHistoryTest.conf(1);
    long blockSize = conf.getLong("fffs.blocksize", 0);
    // One packet spans four blocks: the stream sends the first block's part, then opens the second block's writer.
    conf.setLong(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, 4 * blockSize);
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 1);
        FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      AtomicLong firstBlock = new AtomicLong();
      AtomicLong struck = new AtomicLong();
      WriteFaultInjector.set(new WriteFaultInjector() {
        @Override
        public boolean tokenDue(String path, long blockId, List<DatanodeIdProto> pipeline) throws IOException {
          // The first write to the second block comes here after the NameNode chose its pipeline, before it opens.
          if (!firstBlock.compareAndSet(0, blockId) && firstBlock.get() != blockId && struck.get() == 0) {
            struck.set(blockId);
            cluster.stopDataNode(0);
          }
          return false;
        }
      });
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/crossing");
      byte[] bytes = new byte[(int) (4 * blockSize)];
      new Random(29).nextBytes(bytes);
      FSDataOutputStream out = fs.create(file, true);
      FffsException failure = catchThrowableOfType(() -> out.write(bytes), FffsException.class);
      assertThat(failure).as("the write crossing into the unreachable block failed typed").isNotNull();
      assertThat(failure.code()).isEqualTo(ErrorCode.IO_ERROR);
      assertThat(failure).hasMessageContaining("cannot open block " + struck.get() + " of /crossing");

      cluster.restartDataNode(0);
      assertThatThrownBy(out::hflush).isInstanceOfSatisfying(FffsException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR)).hasMessageContaining("cannot open block");
      assertThatThrownBy(() -> out.write(bytes, 0, 1)).isInstanceOfSatisfying(FffsException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR));
      assertThatThrownBy(out::close).isInstanceOfSatisfying(FffsException.class,
          e -> assertThat(e.code()).isEqualTo(ErrorCode.IO_ERROR));
      // Not completed: the file is still open for writing, which a truncate is refused for.
      assertThatThrownBy(() -> fs.truncate(file, 0)).hasMessageContaining("LEASE_CONFLICT");
    }
  }
}
