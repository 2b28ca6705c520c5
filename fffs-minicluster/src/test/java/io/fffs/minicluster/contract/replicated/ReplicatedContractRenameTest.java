package io.fffs.minicluster.contract.replicated;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractRenameTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's Rename contract against FFFS at replication 3 on three DataNodes. */
public class ReplicatedContractRenameTest extends AbstractContractRenameTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new ReplicatedContract(conf);
  }
}
