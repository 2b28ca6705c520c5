package io.fffs.minicluster.contract.temporal;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.contract.replicated.ReplicatedCluster;
import io.fffs.common.usertime.FixedRecordUserTimeExtractor;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/** The temporal read contract at replication 3 on three DataNodes, each restarted where the contract restarts. */
class ReplicatedTemporalReadContractTest extends AbstractTemporalReadContractTest {
  ReplicatedTemporalReadContractTest() {
    super(ReplicatedCluster::fileSystem);
  }

  @Override
  protected long momentBetweenChanges() throws IOException {
    return FffsTemporalContracts.momentBetweenChanges((FreezeFrameFileSystem) fs);
  }

  @Override
  protected void restartCluster() throws IOException {
    MiniFffsCluster cluster = ReplicatedCluster.get();
    cluster.restartNameNode();
    for (int i = 0; i < cluster.getNumDataNodes(); i++) {
      cluster.restartDataNode(i);
    }
  }

  @Override
  protected FileSystem userTimeFileSystem() throws IOException {
    Configuration conf = new Configuration(ReplicatedCluster.get().getConfiguration());
    conf.set("fffs.usertime.plugin", FixedRecordUserTimeExtractor.NAME);
    return FileSystem.newInstance(ReplicatedCluster.get().getURI(), conf);
  }

  @Override
  protected byte[] userTimeRecord(long micros, byte payload) {
    return FixedRecordUserTimeExtractor.record(micros, payload);
  }
}
