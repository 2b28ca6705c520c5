package io.fffs.minicluster.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractGetEnclosingRoot;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's getEnclosingRoot contract: FFFS has no encryption zones or mounts, so the root encloses everything. */
public class FffsContractGetEnclosingRootTest extends AbstractContractGetEnclosingRoot {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new FffsContract(conf);
  }
}
