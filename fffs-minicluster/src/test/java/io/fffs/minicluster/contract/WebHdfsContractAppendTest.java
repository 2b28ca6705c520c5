package io.fffs.minicluster.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FileVersion;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractContractAppendTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;
import org.apache.hadoop.fs.contract.ContractTestUtils;
import org.junit.jupiter.api.Test;

/** Hadoop's Append contract against FFFS through Hadoop's WebHDFS client and FFFS's gateways. */
public class WebHdfsContractAppendTest extends AbstractContractAppendTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new WebHdfsContract(conf);
  }

  /**
   * The contract's rename of a file being appended, made deterministic. {@code WebHdfsFileSystem.append} returns a
   * stream whose request (headers included) leaves the JVM only once its first 32 KiB chunk is full, so with the
   * contract's 256 bytes the rename always overtakes the append, whatever the server. Here enough is written to
   * send the request, and the rename waits until the NameNode's history shows the file opened for writing; then,
   * as the contract says, the appended bytes follow the file to its new name.
   */
  @Override
  @Test
  public void testRenameFileBeingAppended() throws Throwable {
    FileSystem fs = getFileSystem();
    Path target = methodPath();
    Path renamed = new Path(target.getParent(), target.getName() + "-renamed");
    ContractTestUtils.touch(fs, target);
    byte[] dataset = ContractTestUtils.dataset(256 * 1024, 'a', 'z');
    try (FSDataOutputStream out = fs.append(target)) {
      out.write(dataset);
      awaitOpenForWrite(target);
      ContractTestUtils.rename(fs, target, renamed);
    }
    ContractTestUtils.assertPathExists(fs, "renamed destination", renamed);
    ContractTestUtils.assertPathDoesNotExist(fs, "source after rename during append", target);
    ContractTestUtils.verifyFileContents(fs, renamed, dataset);
  }

  private static void awaitOpenForWrite(Path path) throws Exception {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      List<FileVersion> versions = SharedCluster.fileSystem().listVersions(path);
      if (versions.get(versions.size() - 1).change().equals("openForWrite")) {
        return;
      }
      assertThat(System.nanoTime()).as("the gateway opened %s for appending: %s", path, versions)
          .isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
