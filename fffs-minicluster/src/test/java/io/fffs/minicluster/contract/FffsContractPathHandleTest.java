package io.fffs.minicluster.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractPathHandleTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * PathHandle: a handle names the inode (ids are never reused) and the version its status showed, and opens the file
 * wherever it moved, as of the moment the NameNode checked it ({@code FreezeFrameFileSystem.open(PathHandle, int)}).
 */
public class FffsContractPathHandleTest extends AbstractContractPathHandleTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new FffsContract(conf);
  }
}
