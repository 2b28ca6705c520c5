package io.fffs.plugins;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.usertime.UserTimeExtractor;
import java.util.function.LongConsumer;

/**
 * {@value #NAME}: binary records that each start with their user time as an 8-byte big-endian signed count of µs
 * since the epoch (negative times are refused). Two framings, chosen by the file's plug-in name:
 *
 * <pre>
 * ts64:fixed=N   every record is N bytes (N &ge; 8):
 *                  0        8                N
 *                  +--------+----------------+
 *                  | time   | payload        |
 *                  +--------+----------------+
 *
 * ts64:prefixed  (also plain ts64) every record is preceded by its length L (L &ge; 8, bytes of time + payload)
 *                as a 4-byte big-endian integer below 2^31:
 *                  0        4        12               4+L
 *                  +--------+--------+----------------+
 *                  | L      | time   | payload        |
 *                  +--------+--------+----------------+
 * </pre>
 *
 * Payload bytes are skipped, never buffered, so records of any length cost a stream a few longs.
 */
public final class Ts64UserTimeExtractor implements UserTimeExtractor {
  public static final String NAME = "ts64";
  /** Bytes of a record's time field. */
  public static final int TIME_BYTES = 8;
  /** Bytes of the length prefix in {@code prefixed} framing. */
  public static final int PREFIX_BYTES = 4;

  /** The record length in fixed framing, or 0 for length-prefixed records. */
  private final int fixedLength;

  public Ts64UserTimeExtractor() {
    this(0);
  }

  private Ts64UserTimeExtractor(int fixedLength) {
    this.fixedLength = fixedLength;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** {@code fixed=N} (N &ge; 8) or {@code prefixed}. */
  @Override
  public UserTimeExtractor withParameters(String parameters) throws FffsException {
    if (parameters.equals("prefixed")) {
      return new Ts64UserTimeExtractor(0);
    }
    if (parameters.startsWith("fixed=")) {
      String value = parameters.substring("fixed=".length());
      try {
        int length = Integer.parseInt(value);
        if (length >= TIME_BYTES) {
          return new Ts64UserTimeExtractor(length);
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "user-time plug-in " + NAME + ":" + parameters
          + ": the record length must be a whole number of bytes from " + TIME_BYTES + " to " + Integer.MAX_VALUE
          + ", not '" + value + "'");
    }
    throw new FffsException(ErrorCode.INVALID_ARGUMENT, "user-time plug-in " + NAME + " takes 'fixed=<record bytes>'"
        + " or 'prefixed' (" + NAME + ":fixed=32, " + NAME + ":prefixed), not '" + parameters + "'");
  }

  /** The record length in fixed framing, or 0 for length-prefixed records. */
  public int fixedLength() {
    return fixedLength;
  }

  @Override
  public Stream newStream() {
    return new Ts64Stream(fixedLength == 0 ? NAME + ":prefixed" : NAME + ":fixed=" + fixedLength, fixedLength);
  }

  private static final class Ts64Stream extends RecordStream {
    private final int fixedLength;
    /** Where the time field starts within a record: after the prefix, if any. */
    private final int timeStart;
    /** Bytes of the current record consumed so far, prefix included. */
    private long filled;
    /** Prefix plus L, or the fixed length; known once the prefix is read. */
    private long recordBytes;
    private int prefix;
    private long time;
    private long recordStart;

    Ts64Stream(String label, int fixedLength) {
      super(label);
      this.fixedLength = fixedLength;
      this.timeStart = fixedLength == 0 ? PREFIX_BYTES : 0;
      this.recordBytes = fixedLength == 0 ? Long.MAX_VALUE : fixedLength;
    }

    private Ts64Stream(Ts64Stream other) {
      super(other);
      this.fixedLength = other.fixedLength;
      this.timeStart = other.timeStart;
      this.filled = other.filled;
      this.recordBytes = other.recordBytes;
      this.prefix = other.prefix;
      this.time = other.time;
      this.recordStart = other.recordStart;
    }

    @Override
    void consume(byte b, LongConsumer userTimes) throws FffsException {
      if (filled == 0) {
        recordStart = position();
      }
      if (filled < timeStart) {
        prefix = prefix << 8 | (b & 0xff);
        if (filled + 1 == timeStart) {
          if (prefix < TIME_BYTES) {
            throw badRecord(recordStart, "has length prefix " + Integer.toUnsignedString(prefix)
                + ", but a length must count the " + TIME_BYTES + "-byte time and the payload and be below 2^31");
          }
          recordBytes = (long) PREFIX_BYTES + prefix;
        }
      } else if (filled < timeStart + TIME_BYTES) {
        time = time << 8 | (b & 0xff);
        if (filled + 1 == timeStart + TIME_BYTES && time < 0) {
          throw badRecord(recordStart, "has a negative user time (" + time + " µs since the epoch)");
        }
      }
      if (++filled == recordBytes) {
        userTimes.accept(time);
        filled = 0;
        prefix = 0;
        time = 0;
        recordBytes = fixedLength == 0 ? Long.MAX_VALUE : fixedLength;
      }
    }

    @Override
    public Stream copy() {
      return new Ts64Stream(this);
    }
  }
}
