package io.fffs.minicluster.contract.replicated;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractCreateTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's Create contract against FFFS at replication 3 on three DataNodes. */
public class ReplicatedContractCreateTest extends AbstractContractCreateTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new ReplicatedContract(conf);
  }
}
