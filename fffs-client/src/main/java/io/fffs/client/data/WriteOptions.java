package io.fffs.client.data;

/** What a DataNode needs to know about the file a block belongs to. */
public final class WriteOptions {
  private final long blockSize;
  private final String userTimePlugin;

  public WriteOptions(long blockSize, String userTimePlugin) {
    this.blockSize = blockSize;
    this.userTimePlugin = userTimePlugin;
  }

  /** Writes past this many bytes of the block are {@code BLOCK_SIZE_EXCEEDED}. */
  public long blockSize() {
    return blockSize;
  }

  /** The user-time extractor of the file, or null. */
  public String userTimePlugin() {
    return userTimePlugin;
  }
}
