package io.fffs.datanode.store;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.time.TimeText;
import io.fffs.datanode.store.log.BlockLog;

/** Which state of a block a read asks for: a {@link TimeSpec} or a log index. Immutable. */
abstract class Selector {
  private final TimeSpec time;

  private Selector(TimeSpec time) {
    this.time = time;
  }

  /** The time asked for; null for a log index. */
  TimeSpec time() {
    return time;
  }

  /** The index of the entry whose state is asked for, -1 if the block had no entry yet. */
  abstract int indexIn(BlockLog log, long blockId) throws FffsException;

  /** "as of system time …" for messages. */
  abstract String describe();

  static Selector of(TimeSpec time) {
    switch (time.kind()) {
      case SYSTEM:
        return new Selector(time) {
          @Override
          int indexIn(BlockLog log, long blockId) {
            return log.indexAtSystemTime(time.micros());
          }

          @Override
          String describe() {
            return "as of system time " + TimeText.isoMicros(time.micros());
          }
        };
      case USER:
        return new Selector(time) {
          @Override
          int indexIn(BlockLog log, long blockId) {
            return log.indexAtUserTime(time.micros());
          }

          @Override
          String describe() {
            return "as of user time " + TimeText.isoMicros(time.micros());
          }
        };
      default:
        return new Selector(time) {
          @Override
          int indexIn(BlockLog log, long blockId) {
            return log.count() - 1;
          }

          @Override
          String describe() {
            return "now";
          }
        };
    }
  }

  static Selector logIndex(int index) {
    return new Selector(null) {
      @Override
      int indexIn(BlockLog log, long blockId) throws FffsException {
        if (index < 0 || index >= log.count()) {
          throw new FffsException(ErrorCode.NOT_FOUND, "block " + blockId + " has no log index " + index
              + " (its log holds " + log.count() + " entries)");
        }
        return index;
      }

      @Override
      String describe() {
        return "at log index " + index;
      }
    };
  }
}
