package io.fffs.datanode.store;

/**
 * How a write is checked: the file's block size (a write past it is {@code BLOCK_SIZE_EXCEEDED}; 0 means the store's
 * {@code fffs.datanode.block.max-size}) and the name of the file's user-time extractor (null for none).
 */
public record WriteOptions(long blockSize, String userTimeExtractor) {
  private static final WriteOptions DEFAULTS = new WriteOptions(0, null);

  public WriteOptions {
    if (blockSize < 0) {
      throw new IllegalArgumentException("negative block size: " + blockSize);
    }
  }

  public static WriteOptions defaults() {
    return DEFAULTS;
  }

  public WriteOptions withBlockSize(long size) {
    return new WriteOptions(size, userTimeExtractor);
  }

  public WriteOptions withUserTimeExtractor(String name) {
    return new WriteOptions(blockSize, name);
  }
}
