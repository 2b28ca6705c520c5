package io.fffs.minicluster.contract.temporal;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.minicluster.contract.replicated.ReplicatedCluster;
import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;

/** The random-write contract at replication 3 on three DataNodes: every replica takes the writes at one stamp. */
class ReplicatedRandomWriteContractTest extends AbstractRandomWriteContractTest {
  ReplicatedRandomWriteContractTest() {
    super(ReplicatedCluster::fileSystem);
  }

  @Override
  protected long momentBetweenChanges() throws IOException {
    return FffsTemporalContracts.momentBetweenChanges((FreezeFrameFileSystem) fs);
  }

  @Override
  protected FSDataOutputStream openForWrite(Path file) throws IOException {
    return ((FreezeFrameFileSystem) fs).openForWrite(file);
  }

  @Override
  protected void seek(FSDataOutputStream out, long position) throws IOException {
    ((FffsDataOutputStream) out).seek(position);
  }
}
