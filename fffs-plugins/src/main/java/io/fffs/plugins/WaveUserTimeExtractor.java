package io.fffs.plugins;

import io.fffs.common.error.FffsException;
import io.fffs.common.usertime.UserTimeExtractor;
import java.nio.ByteBuffer;
import java.util.function.LongConsumer;

/**
 * {@value #NAME}: files of {@link WaveRecord}s, the samples of the wave experiment; a record's user time is its
 * sample time. Takes no parameters.
 */
public final class WaveUserTimeExtractor implements UserTimeExtractor {
  public static final String NAME = "wave";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Stream newStream() {
    return new WaveStream();
  }

  private static final class WaveStream extends RecordStream {
    private final ByteBuffer record;

    WaveStream() {
      super(NAME);
      record = ByteBuffer.allocate(WaveRecord.BYTES);
    }

    private WaveStream(WaveStream other) {
      super(other);
      record = ByteBuffer.allocate(WaveRecord.BYTES).put(other.record.duplicate().flip());
    }

    @Override
    void consume(byte b, LongConsumer userTimes) throws FffsException {
      record.put(b);
      if (!record.hasRemaining()) {
        long recordStart = position() + 1 - WaveRecord.BYTES;
        record.clear();
        WaveRecord sample;
        try {
          sample = WaveRecord.valueOf(record, 0);
        } catch (IllegalArgumentException e) {
          throw badRecord(recordStart, e.getMessage());
        }
        userTimes.accept(sample.sampleTimeMicros());
      }
    }

    @Override
    public Stream copy() {
      return new WaveStream(this);
    }
  }
}
