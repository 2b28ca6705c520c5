package io.fffs.minicluster.contract.replicated;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractAppendTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's Append contract against FFFS at replication 3 on three DataNodes. */
public class ReplicatedContractAppendTest extends AbstractContractAppendTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new ReplicatedContract(conf);
  }
}
