package io.fffs.minicluster.contract;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractContractSeekTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;
import org.apache.hadoop.fs.contract.ContractTestUtils;
import org.junit.jupiter.api.Test;

/** Hadoop's Seek contract against FFFS through Hadoop's WebHDFS client and FFFS's gateways. */
public class WebHdfsContractSeekTest extends AbstractContractSeekTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new WebHdfsContract(conf);
  }

  /**
   * Hadoop's {@code WebHdfsFileSystem} stream takes a negative seek and then refuses to build the request's
   * {@code offset=-1} itself ({@code IllegalArgumentException}, not the {@code IOException} the contract asks
   * for), whatever the server: that is what is checked here, and that the stream reads on from a good position.
   */
  @Override
  @Test
  public void testNegativeSeek() throws Throwable {
    Path file = methodPath();
    ContractTestUtils.writeDataset(getFileSystem(), file, ContractTestUtils.dataset(64, 'a', 'z'), 64,
        SharedCluster.BLOCK_SIZE, true);
    try (FSDataInputStream in = getFileSystem().open(file)) {
      in.seek(-1);
      assertThatThrownBy(in::read).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("offset");
      in.seek(3);
      org.assertj.core.api.Assertions.assertThat(in.read()).isEqualTo('d');
    }
  }
}
