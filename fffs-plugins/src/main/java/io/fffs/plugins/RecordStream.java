package io.fffs.plugins;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.usertime.UserTimeExtractor;
import java.nio.ByteBuffer;
import java.util.function.LongConsumer;

/**
 * A {@link UserTimeExtractor.Stream} that parses one byte at a time and counts the bytes it has seen, so that a bad
 * record can be named by its byte offset from the stream's start (the block's start: the store makes one stream per
 * block) and within the write that carried it.
 */
abstract class RecordStream implements UserTimeExtractor.Stream {
  private final String label;
  /** Bytes consumed since the stream began; the offset of the byte being consumed. */
  private long position;
  /** {@link #position} at the first byte of the current write. */
  private long writeStart;

  RecordStream(String label) {
    this.label = label;
  }

  RecordStream(RecordStream other) {
    this.label = other.label;
    this.position = other.position;
    this.writeStart = other.writeStart;
  }

  @Override
  public final void extract(ByteBuffer data, LongConsumer userTimes) throws FffsException {
    writeStart = position;
    for (int i = data.position(); i < data.limit(); i++) {
      consume(data.get(i), userTimes);
      position++;
    }
  }

  /** Takes the next byte, at stream offset {@link #position()}; reports the time of a record it completes. */
  abstract void consume(byte b, LongConsumer userTimes) throws FffsException;

  final long position() {
    return position;
  }

  /** An {@code INVALID_ARGUMENT} for the record that starts at stream offset {@code recordStart}. */
  final FffsException badRecord(long recordStart, String problem) {
    String inWrite = recordStart >= writeStart ? "byte " + (recordStart - writeStart) + " of this write"
        : "begun " + (writeStart - recordStart) + " bytes before this write";
    return new FffsException(ErrorCode.INVALID_ARGUMENT, "user-time plug-in " + label + ": the record at byte offset "
        + recordStart + " of the block (" + inWrite + ") " + problem + "; the write was refused and nothing changed");
  }
}
