package io.fffs.minicluster.contract;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * FFFS through its WebHDFS gateways as Hadoop's own {@code WebHdfsFileSystem} sees it: what that pair supports
 * ({@code contract/webhdfs-fffs.xml}) and the client on the {@link SharedCluster}'s gateway.
 */
public class WebHdfsContract extends AbstractFSContract {
  public static final String CONTRACT_XML = "contract/webhdfs-fffs.xml";

  public WebHdfsContract(Configuration conf) {
    super(conf);
    addConfResource(CONTRACT_XML);
  }

  @Override
  public FileSystem getTestFileSystem() throws IOException {
    return SharedCluster.webHdfsFileSystem();
  }

  @Override
  public String getScheme() {
    return "webhdfs";
  }

  @Override
  public Path getTestPath() {
    return new Path("/test-webhdfs");
  }
}
