package io.fffs.minicluster.contract.temporal;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FreezeFrameFileSystem;
import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;

/**
 * The random-write contract on any FFFS cluster: {@code openForWrite} and {@link FffsDataOutputStream#seek}; a
 * subclass supplies the cluster's file system.
 */
public abstract class FffsRandomWriteContract extends AbstractRandomWriteContractTest {
  protected FffsRandomWriteContract(FileSystemSource source) {
    super(source);
  }

  @Override
  protected long momentBetweenChanges() throws IOException {
    return FffsTemporalContracts.momentBetweenChanges((FreezeFrameFileSystem) fs);
  }

  @Override
  protected FSDataOutputStream openForWrite(Path file) throws IOException {
    return ((FreezeFrameFileSystem) fs).openForWrite(file);
  }

  @Override
  protected void seek(FSDataOutputStream out, long position) throws IOException {
    ((FffsDataOutputStream) out).seek(position);
  }
}
