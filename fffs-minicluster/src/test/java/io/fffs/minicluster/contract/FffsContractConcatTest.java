package io.fffs.minicluster.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractConcatTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Concat: declared unsupported in fffs.xml, so the suite skips itself (Hadoop's intended mechanism). */
public class FffsContractConcatTest extends AbstractContractConcatTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new FffsContract(conf);
  }
}
