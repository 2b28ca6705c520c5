package io.fffs.plugins;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One sample of the wave experiment (issue 8): the surface height of one grid cell at one time. Its bytes, the
 * records of a file using the {@value WaveUserTimeExtractor#NAME} plug-in, are {@value #BYTES} bytes, big-endian:
 *
 * <pre>
 *  0       2     3     4          8                  16          20
 *  +-------+-----+-----+----------+------------------+-----------+
 *  | magic | ver | 0   | cell id  | sample time      | height    |
 *  | "WV"  | 1   |     | int32    | int64 µs since   | float32   |
 *  |       |     |     | &ge; 0   | the epoch, &ge; 0| finite    |
 *  +-------+-----+-----+----------+------------------+-----------+
 * </pre>
 *
 * The magic, version and reserved zero byte let a reader tell a record boundary from the middle of a record.
 */
public record WaveRecord(int cellId, long sampleTimeMicros, float height) {
  public static final int BYTES = 20;
  public static final short MAGIC = 0x5756;  // "WV"
  public static final byte VERSION = 1;
  static final int CELL_OFFSET = 4;
  static final int TIME_OFFSET = 8;
  static final int HEIGHT_OFFSET = 16;

  /** @throws IllegalArgumentException for a negative cell id or time, or a height that is not finite */
  public WaveRecord {
    String problem = problem(cellId, sampleTimeMicros, height);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }

  /** The {@value #BYTES} bytes of a record; what an experiment writer appends to its file per sample. */
  public static byte[] encode(int cellId, long sampleTimeMicros, float height) {
    return new WaveRecord(cellId, sampleTimeMicros, height).toBytes();
  }

  public byte[] toBytes() {
    return writeTo(ByteBuffer.allocate(BYTES)).array();
  }

  /** Puts this record at {@code dst}'s position, moving it by {@value #BYTES}; returns {@code dst}. */
  public ByteBuffer writeTo(ByteBuffer dst) {
    return dst.putShort(MAGIC).put(VERSION).put((byte) 0).putInt(cellId).putLong(sampleTimeMicros).putFloat(height);
  }

  /**
   * The record in {@code src}'s {@value #BYTES} bytes from absolute {@code offset} (big-endian whatever {@code src}'s
   * byte order; the position does not move).
   *
   * @throws IllegalArgumentException saying why the bytes are not a record
   */
  public static WaveRecord valueOf(ByteBuffer src, int offset) {
    ByteBuffer bytes = src.duplicate().order(ByteOrder.BIG_ENDIAN);
    short magic = bytes.getShort(offset);
    if (magic != MAGIC) {
      throw new IllegalArgumentException(String.format("starts with 0x%04x, not the magic 0x%04x (\"WV\")", magic,
          MAGIC));
    }
    if (bytes.get(offset + 2) != VERSION) {
      throw new IllegalArgumentException("has version " + bytes.get(offset + 2) + ", but only version " + VERSION
          + " is known");
    }
    if (bytes.get(offset + 3) != 0) {
      throw new IllegalArgumentException("has " + bytes.get(offset + 3) + " in its reserved byte 3, which must be 0");
    }
    return new WaveRecord(bytes.getInt(offset + CELL_OFFSET), bytes.getLong(offset + TIME_OFFSET),
        bytes.getFloat(offset + HEIGHT_OFFSET));
  }

  private static String problem(int cellId, long sampleTimeMicros, float height) {
    if (cellId < 0) {
      return "has negative cell id " + cellId;
    }
    if (sampleTimeMicros < 0) {
      return "has a negative sample time (" + sampleTimeMicros + " µs since the epoch)";
    }
    if (!Float.isFinite(height)) {
      return "has height " + height + ", which is not a finite number";
    }
    return null;
  }
}
