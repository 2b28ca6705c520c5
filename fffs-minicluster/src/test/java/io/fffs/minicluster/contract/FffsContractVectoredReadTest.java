package io.fffs.minicluster.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractVectoredReadTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's vectored-read contract against FFFS, once per buffer type (heap, direct). */
public class FffsContractVectoredReadTest extends AbstractContractVectoredReadTest {
  public FffsContractVectoredReadTest(String bufferType) {
    super(bufferType);
  }

  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new FffsContract(conf);
  }
}
