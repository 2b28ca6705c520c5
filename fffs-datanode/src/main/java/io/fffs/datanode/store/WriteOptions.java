package io.fffs.datanode.store;

/**
 * How a write is checked: the file's block size (a write past it is {@code BLOCK_SIZE_EXCEEDED}; 0 means the store's
 * {@code fffs.datanode.block.max-size}) and the name of the file's user-time extractor (null for none).
 *
 * <p>{@code chunkCrcs}, when not null, are the CRC32Cs of the data's 512-byte chunks (the first starting at the data's
 * first byte, the last possibly shorter) that the caller has already checked against the bytes, as the data server
 * does on arrival. Persistence then derives the checksums of the pages the write covers whole from them instead of
 * reading those pages once more. Checksums that do not match the bytes are not silently accepted: the pages they
 * describe fail their check when read back from disk ({@code CORRUPT}). The store keeps the array until the write
 * is persisted, so it must not be changed after the write; like any record component array it is compared by
 * identity in {@code equals}.
 *
 * <p>{@code replica}, when not null, makes the write a follower's: its entries take the primary's stamps instead of
 * ticks of this node's clock, and no user-time extractor runs ({@link ReplicaStamp}).
 */
public record WriteOptions(long blockSize, String userTimeExtractor, int[] chunkCrcs, ReplicaStamp replica) {
  private static final WriteOptions DEFAULTS = new WriteOptions(0, null);

  public WriteOptions {
    if (blockSize < 0) {
      throw new IllegalArgumentException("negative block size: " + blockSize);
    }
  }

  public WriteOptions(long blockSize, String userTimeExtractor) {
    this(blockSize, userTimeExtractor, null, null);
  }

  public WriteOptions(long blockSize, String userTimeExtractor, int[] chunkCrcs) {
    this(blockSize, userTimeExtractor, chunkCrcs, null);
  }

  public static WriteOptions defaults() {
    return DEFAULTS;
  }

  public WriteOptions withBlockSize(long size) {
    return new WriteOptions(size, userTimeExtractor, chunkCrcs, replica);
  }

  public WriteOptions withUserTimeExtractor(String name) {
    return new WriteOptions(blockSize, name, chunkCrcs, replica);
  }

  /** These options for data whose chunks have the given, already checked, CRC32Cs. */
  public WriteOptions withChunkCrcs(int[] crcs) {
    return new WriteOptions(blockSize, userTimeExtractor, crcs, replica);
  }

  /** These options for a follower's write at the primary's stamps. */
  public WriteOptions withReplica(ReplicaStamp stamp) {
    return new WriteOptions(blockSize, userTimeExtractor, chunkCrcs, stamp);
  }
}
