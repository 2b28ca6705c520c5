package io.fffs.minicluster.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractPathHandleTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * PathHandle: declared unsupported in fffs.xml ({@code supports-file-reference}, {@code supports-content-check}),
 * so each case skips itself; {@code getPathHandle} throws {@link UnsupportedOperationException}, which the suite
 * also treats as a skip. See docs/hadoop.md.
 */
public class FffsContractPathHandleTest extends AbstractContractPathHandleTest {
  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new FffsContract(conf);
  }
}
