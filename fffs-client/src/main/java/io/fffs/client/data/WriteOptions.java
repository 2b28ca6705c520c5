package io.fffs.client.data;

/**
 * What a DataNode needs to know about the file a block belongs to.
 *
 * @param blockSize writes past this many bytes of the block are {@code BLOCK_SIZE_EXCEEDED}
 * @param userTimePlugin the user-time extractor of the file, or null
 */
public record WriteOptions(long blockSize, String userTimePlugin) {
}
