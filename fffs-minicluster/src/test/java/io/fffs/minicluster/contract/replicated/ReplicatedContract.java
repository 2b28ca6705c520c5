package io.fffs.minicluster.contract.replicated;

import io.fffs.minicluster.contract.FffsContract;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/** {@link FffsContract} on {@link ReplicatedCluster}: three DataNodes, replication 3. */
public class ReplicatedContract extends FffsContract {
  public ReplicatedContract(Configuration conf) {
    super(conf);
  }

  @Override
  public FileSystem getTestFileSystem() throws IOException {
    return ReplicatedCluster.fileSystem();
  }
}
