package io.fffs.common.usertime;

import java.nio.ByteBuffer;
import java.util.function.LongConsumer;

/**
 * A test extractor named {@value #NAME}: records of {@value #RECORD_LENGTH} bytes, each starting with its user time
 * as an 8-byte big-endian count of µs since the epoch; the rest of the record is payload. Records may be split across
 * writes. Shipped in the test-jar so other modules' tests can use it.
 */
public final class FixedRecordUserTimeExtractor implements UserTimeExtractor {
  public static final String NAME = "test-fixed16";
  public static final int RECORD_LENGTH = 16;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Stream newStream() {
    return new FixedStream(new byte[RECORD_LENGTH], 0);
  }

  /** A record whose first eight bytes carry {@code userTimeMicros} and whose payload is {@code fill}. */
  public static byte[] record(long userTimeMicros, byte fill) {
    ByteBuffer record = ByteBuffer.allocate(RECORD_LENGTH).putLong(userTimeMicros);
    while (record.hasRemaining()) {
      record.put(fill);
    }
    return record.array();
  }

  private static final class FixedStream implements Stream {
    private final byte[] partial;
    private int filled;

    FixedStream(byte[] partial, int filled) {
      this.partial = partial;
      this.filled = filled;
    }

    @Override
    public void extract(ByteBuffer data, LongConsumer userTimes) {
      for (int i = data.position(); i < data.limit(); i++) {
        partial[filled++] = data.get(i);
        if (filled == RECORD_LENGTH) {
          userTimes.accept(ByteBuffer.wrap(partial).getLong(0));
          filled = 0;
        }
      }
    }

    @Override
    public Stream copy() {
      return new FixedStream(partial.clone(), filled);
    }
  }
}
