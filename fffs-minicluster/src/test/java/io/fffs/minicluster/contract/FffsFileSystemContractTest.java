package io.fffs.minicluster.contract;

import org.apache.hadoop.fs.FileSystemContractBaseTest;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.BeforeEach;

/** Hadoop's original {@link FileSystemContractBaseTest} against the shared cluster's client. */
public class FffsFileSystemContractTest extends FileSystemContractBaseTest {
  private String workingDirectory;

  @BeforeEach
  public void setUp() throws Exception {
    fs = SharedCluster.fileSystem();
    workingDirectory = "/user/" + UserGroupInformation.getCurrentUser().getShortUserName();
    // The client is shared: undo a working directory an earlier case moved.
    fs.setWorkingDirectory(new Path(workingDirectory));
  }

  @Override
  protected String getDefaultWorkingDirectory() {
    return workingDirectory;
  }
}
