package io.fffs.minicluster.contract;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * FFFS's answer to Hadoop's contract suites: what it supports ({@code contract/fffs.xml}) and the file system to
 * test (the {@link SharedCluster}'s).
 */
public class FffsContract extends AbstractFSContract {
  /** The options file; see docs/hadoop.md for why each unsupported feature is. */
  public static final String CONTRACT_XML = "contract/fffs.xml";

  public FffsContract(Configuration conf) {
    super(conf);
    addConfResource(CONTRACT_XML);
  }

  @Override
  public FileSystem getTestFileSystem() throws IOException {
    return SharedCluster.fileSystem();
  }

  @Override
  public String getScheme() {
    return "fffs";
  }

  @Override
  public Path getTestPath() {
    return new Path("/test");
  }
}
