package io.fffs.namenode.fs;

import static io.fffs.namenode.fs.NamesystemFixture.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.namenode.NameNodeConfigKeys;
import java.nio.file.Path;
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
}
