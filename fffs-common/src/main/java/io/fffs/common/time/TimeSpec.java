package io.fffs.common.time;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.CommonProtos.TimeKindProto;
import io.fffs.common.proto.CommonProtos.TimeSpecProto;
import java.util.Objects;

/**
 * "As of when" a read or query is asked: the latest state, a system time (HLC physical part, µs since the epoch)
 * or a user time (timestamps a plug-in extracted from the data, µs since the epoch). Immutable.
 *
 * <p>The text form is the marker of docs/design.md §2 ({@code @s1763719200000.250}, {@code @u…}); {@link #parse}
 * accepts it with or without the {@code @}, and also the ISO forms and {@code latest}.
 */
public final class TimeSpec {
  /** Which clock the time is measured in. */
  public enum Kind {
    SYSTEM,
    USER,
    LATEST
  }

  private static final TimeSpec LATEST = new TimeSpec(Kind.LATEST, 0);

  private final Kind kind;
  private final long micros;

  private TimeSpec(Kind kind, long micros) {
    this.kind = kind;
    this.micros = micros;
  }

  /** The state made by exactly the events whose HLC physical part is at most {@code epochMicros}. */
  public static TimeSpec system(long epochMicros) {
    return new TimeSpec(Kind.SYSTEM, checkNonNegative(epochMicros));
  }

  /** {@link #system(long)} for a time in milliseconds since the epoch. */
  public static TimeSpec systemMillis(long epochMillis) {
    return system(Math.multiplyExact(checkNonNegative(epochMillis), 1000L));
  }

  /** The state made by the records whose user timestamp is at most {@code epochMicros}. */
  public static TimeSpec user(long epochMicros) {
    return new TimeSpec(Kind.USER, checkNonNegative(epochMicros));
  }

  /** {@link #user(long)} for a time in milliseconds since the epoch. */
  public static TimeSpec userMillis(long epochMillis) {
    return user(Math.multiplyExact(checkNonNegative(epochMillis), 1000L));
  }

  /** The newest state. */
  public static TimeSpec latest() {
    return LATEST;
  }

  /**
   * Parses a time text: {@code latest}, or a marker with or without its {@code @} — {@code s<millis>[.<µs>]},
   * {@code u<millis>[.<µs>]}, {@code s<iso>}, {@code u<iso>} or a bare ISO instant (system time).
   *
   * @throws FffsException {@code MALFORMED_TIME} quoting the text and the accepted forms
   */
  public static TimeSpec parse(String text) throws FffsException {
    return TimeSpecParser.parse(text);
  }

  public Kind kind() {
    return kind;
  }

  /** Microseconds since the epoch; 0 for {@link Kind#LATEST}. */
  public long micros() {
    return micros;
  }

  public boolean isLatest() {
    return kind == Kind.LATEST;
  }

  /**
   * The path marker that reads this time, e.g. {@code @s1763719200000} or {@code @u1763719200000.250}; the empty
   * string for {@link Kind#LATEST}. {@code TimeSpec.parse(spec.toMarker())} equals {@code spec}.
   */
  public String toMarker() {
    if (kind == Kind.LATEST) {
      return "";
    }
    StringBuilder marker = new StringBuilder(20).append('@').append(kind == Kind.SYSTEM ? 's' : 'u');
    marker.append(micros / 1000);
    long fraction = micros % 1000;
    if (fraction != 0) {
      marker.append('.');
      if (fraction < 100) {
        marker.append('0');
      }
      if (fraction < 10) {
        marker.append('0');
      }
      marker.append(fraction);
    }
    return marker.toString();
  }

  public TimeSpecProto toProto() {
    TimeSpecProto.Builder proto = TimeSpecProto.newBuilder();
    switch (kind) {
      case SYSTEM:
        proto.setKind(TimeKindProto.SYSTEM);
        break;
      case USER:
        proto.setKind(TimeKindProto.USER);
        break;
      default:
        return proto.setKind(TimeKindProto.LATEST).build();
    }
    return proto.setMicros(micros).build();
  }

  /**
   * The time a message from another process names, checked: {@code MALFORMED_TIME} for one before the epoch, so a
   * server answers with a typed refusal rather than an internal error.
   */
  public static TimeSpec fromWire(TimeSpecProto proto) throws FffsException {
    if (proto.getKind() != TimeKindProto.LATEST && proto.getMicros() < 0) {
      throw new FffsException(ErrorCode.MALFORMED_TIME, "the time " + proto.getMicros() + " µs is before the epoch"
          + " (1970-01-01T00:00:00Z); name a time since then");
    }
    return fromProto(proto);
  }

  public static TimeSpec fromProto(TimeSpecProto proto) {
    switch (proto.getKind()) {
      case SYSTEM:
        return system(proto.getMicros());
      case USER:
        return user(proto.getMicros());
      default:
        return latest();
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TimeSpec
        && ((TimeSpec) other).kind == kind
        && ((TimeSpec) other).micros == micros;
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, micros);
  }

  /** The marker, or {@code latest}. */
  @Override
  public String toString() {
    return kind == Kind.LATEST ? "latest" : toMarker();
  }

  private static long checkNonNegative(long value) {
    if (value < 0) {
      throw new IllegalArgumentException("time before the epoch: " + value);
    }
    return value;
  }
}
