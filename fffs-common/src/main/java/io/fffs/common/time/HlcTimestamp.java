package io.fffs.common.time;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.CommonProtos.HlcProto;

/**
 * A hybrid logical clock value (Kulkarni et al.), immutable and totally ordered.
 *
 * <p>Layout of the packed {@code long}, which is also the wire form ({@code HlcProto.packed}) and the on-disk form:
 * <pre>
 *   63                                        10 9          0
 *  +-------------------------------------------+------------+
 *  |  physical: µs since the epoch (54 bits)    | logical    |
 *  +-------------------------------------------+------------+
 * </pre>
 * With 10 logical bits the packed value stays a positive signed long until the year 2255. Because physical sits
 * above logical, comparing packed values compares (physical, logical) lexicographically, and adding one to a value
 * whose logical part is {@value #MAX_LOGICAL} carries into the physical part.
 */
public final class HlcTimestamp implements Comparable<HlcTimestamp> {
  /** Bits of the logical counter. */
  public static final int LOGICAL_BITS = 10;
  /** The largest logical value; one more carries into the physical part. */
  public static final int MAX_LOGICAL = (1 << LOGICAL_BITS) - 1;
  /** The largest physical value a packed timestamp can hold (µs since the epoch, in the year 2255). */
  public static final long MAX_PHYSICAL_MICROS = Long.MAX_VALUE >>> LOGICAL_BITS;
  /** (0, 0): before every event. */
  public static final HlcTimestamp ZERO = new HlcTimestamp(0L);

  private final long packed;

  private HlcTimestamp(long packed) {
    this.packed = packed;
  }

  /** The timestamp with this packed form; it must not be negative. */
  public static HlcTimestamp valueOf(long packed) {
    if (packed < 0) {
      throw new IllegalArgumentException("negative packed HLC: " + packed);
    }
    return packed == 0 ? ZERO : new HlcTimestamp(packed);
  }

  /** The timestamp (physicalMicros, logical). */
  public static HlcTimestamp of(long physicalMicros, int logical) {
    if (physicalMicros < 0 || physicalMicros > MAX_PHYSICAL_MICROS) {
      throw new IllegalArgumentException("physical time out of range: " + physicalMicros + " µs");
    }
    if (logical < 0 || logical > MAX_LOGICAL) {
      throw new IllegalArgumentException("logical value out of range 0.." + MAX_LOGICAL + ": " + logical);
    }
    return valueOf(pack(physicalMicros, logical));
  }

  static long pack(long physicalMicros, long logical) {
    return physicalMicros << LOGICAL_BITS | logical;
  }

  static long physicalOf(long packed) {
    return packed >>> LOGICAL_BITS;
  }

  public long packed() {
    return packed;
  }

  /** Microseconds since the epoch. */
  public long physicalMicros() {
    return physicalOf(packed);
  }

  public int logical() {
    return (int) (packed & MAX_LOGICAL);
  }

  public boolean isAfter(HlcTimestamp other) {
    return packed > other.packed;
  }

  public boolean isBefore(HlcTimestamp other) {
    return packed < other.packed;
  }

  public static HlcTimestamp max(HlcTimestamp a, HlcTimestamp b) {
    return a.packed >= b.packed ? a : b;
  }

  public HlcProto toProto() {
    return HlcProto.newBuilder().setPacked(packed).build();
  }

  public static HlcTimestamp fromProto(HlcProto proto) {
    return valueOf(proto.getPacked());
  }

  /**
   * The timestamp a message from another process carries, checked: {@code INVALID_ARGUMENT} for a negative packed
   * form (a damaged or forged message), so a server answers with a typed refusal rather than an internal error.
   */
  public static HlcTimestamp fromWire(HlcProto proto) throws FffsException {
    return valueOf(checkWire(proto.getPacked(), "the message's HLC timestamp"));
  }

  /**
   * {@code packed}, a packed HLC another process sent as a bare number ({@code what}: an epoch, a log position), if
   * it is one: {@code INVALID_ARGUMENT} when negative (a uint64 at or above 2^63 on the wire).
   */
  public static long checkWire(long packed, String what) throws FffsException {
    if (packed < 0) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, what + " " + Long.toUnsignedString(packed)
          + " is beyond the largest an HLC can hold (physical time past the year 2255); the message is damaged");
    }
    return packed;
  }

  @Override
  public int compareTo(HlcTimestamp other) {
    return Long.compare(packed, other.packed);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof HlcTimestamp && ((HlcTimestamp) other).packed == packed;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(packed);
  }

  /** ISO instant with microseconds, then {@code +logical}: {@code 2026-11-21T10:00:00.000250Z+3}. */
  @Override
  public String toString() {
    return TimeText.isoMicros(physicalMicros()) + "+" + logical();
  }
}
