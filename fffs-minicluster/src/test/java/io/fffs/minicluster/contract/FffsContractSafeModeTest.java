package io.fffs.minicluster.contract;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.SafeMode;
import org.apache.hadoop.fs.SafeModeAction;
import org.apache.hadoop.fs.contract.AbstractContractSafeModeTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;
import org.junit.jupiter.api.AfterEach;

/** Hadoop's safe-mode contract (SafeMode on the file system) against FFFS. */
public class FffsContractSafeModeTest extends AbstractContractSafeModeTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new FffsContract(conf);
  }

  /** The cluster is shared with the other suites: a failure half-way must not leave it in safe mode. */
  @AfterEach
  void leaveSafeMode() throws IOException {
    ((SafeMode) getFileSystem()).setSafeMode(SafeModeAction.FORCE_EXIT);
  }
}
