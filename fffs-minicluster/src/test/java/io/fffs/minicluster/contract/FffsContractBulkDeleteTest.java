package io.fffs.minicluster.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractBulkDeleteTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's bulk-delete contract (the default, one-path-at-a-time bulk delete over FFFS's delete). */
public class FffsContractBulkDeleteTest extends AbstractContractBulkDeleteTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new FffsContract(conf);
  }
}
