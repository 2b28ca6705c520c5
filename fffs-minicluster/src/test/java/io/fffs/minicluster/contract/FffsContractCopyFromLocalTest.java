package io.fffs.minicluster.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractCopyFromLocalTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's copyFromLocalFile contract: what {@code fs -put} does underneath. */
public class FffsContractCopyFromLocalTest extends AbstractContractCopyFromLocalTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new FffsContract(conf);
  }
}
