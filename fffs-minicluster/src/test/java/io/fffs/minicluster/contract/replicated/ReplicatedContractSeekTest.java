package io.fffs.minicluster.contract.replicated;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractSeekTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's Seek contract against FFFS at replication 3 on three DataNodes. */
public class ReplicatedContractSeekTest extends AbstractContractSeekTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new ReplicatedContract(conf);
  }
}
