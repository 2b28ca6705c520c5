package io.fffs.client.data;

import io.fffs.common.time.HlcTimestamp;

/**
 * The outcome of a block read.
 *
 * @param bytesRead bytes copied into the caller's buffer
 * @param blockLength the block's length as of the time read
 * @param resolvedHlc HLC of the block-log entry the read resolved to
 */
public record ReadResult(int bytesRead, long blockLength, HlcTimestamp resolvedHlc) {
}
