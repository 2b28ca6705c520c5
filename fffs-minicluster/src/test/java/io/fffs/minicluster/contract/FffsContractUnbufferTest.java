package io.fffs.minicluster.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractUnbufferTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's Unbuffer contract against FFFS. */
public class FffsContractUnbufferTest extends AbstractContractUnbufferTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new FffsContract(conf);
  }
}
