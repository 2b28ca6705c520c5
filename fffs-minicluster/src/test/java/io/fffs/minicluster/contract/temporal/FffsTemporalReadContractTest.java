package io.fffs.minicluster.contract.temporal;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.usertime.FixedRecordUserTimeExtractor;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.contract.SharedCluster;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/** The temporal read contract on FFFS (the shared mini-cluster). */
class FffsTemporalReadContractTest extends AbstractTemporalReadContractTest {
  FffsTemporalReadContractTest() {
    super(SharedCluster::fileSystem);
  }

  @Override
  protected long momentBetweenChanges() throws IOException {
    return FffsTemporalContracts.momentBetweenChanges((FreezeFrameFileSystem) fs);
  }

  @Override
  protected void restartCluster() throws IOException {
    MiniFffsCluster cluster = SharedCluster.get();
    cluster.restartNameNode();
    cluster.restartDataNode(0);
  }

  @Override
  protected FileSystem userTimeFileSystem() throws IOException {
    Configuration conf = SharedCluster.configuration();
    conf.set("fffs.usertime.plugin", FixedRecordUserTimeExtractor.NAME);
    return FileSystem.newInstance(SharedCluster.get().getURI(), conf);
  }

  @Override
  protected byte[] userTimeRecord(long micros, byte payload) {
    return FixedRecordUserTimeExtractor.record(micros, payload);
  }
}
