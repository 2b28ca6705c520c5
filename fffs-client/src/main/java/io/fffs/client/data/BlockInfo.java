package io.fffs.client.data;

import io.fffs.common.time.HlcTimestamp;

/**
 * A block as of a time: whether it existed, its length, and the HLC of the entry that made that state.
 *
 * @param exists false when the block had no state yet (or was deleted) at that time
 * @param length its length then
 * @param resolvedHlc HLC of the block-log entry the question resolved to
 */
public record BlockInfo(boolean exists, long length, HlcTimestamp resolvedHlc) {
}
