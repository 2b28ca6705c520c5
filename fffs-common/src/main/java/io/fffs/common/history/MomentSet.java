package io.fffs.common.history;

import io.fffs.common.proto.HistoryProtos.MomentSetProto;
import io.fffs.common.time.TimeText;
import java.util.Arrays;

/**
 * A set of moments of system time (µs since the epoch): the moments retention keeps. Held as sorted, disjoint,
 * non-adjacent half-open intervals {@code [from, to)}; an interval ending at {@link #END} holds every later moment
 * too (a rule's window). A pinned or thinned moment is the one-µs interval {@code [m, m + 1)}: a read "as of m" sees
 * every event whose HLC physical part is at most m. Immutable; the operations make new sets.
 */
public final class MomentSet {
  /** The end of an interval that goes on forever. */
  public static final long END = Long.MAX_VALUE;
  /** Every moment. */
  public static final MomentSet ALL = new MomentSet(new long[] {0, END});
  /** No moment. */
  public static final MomentSet NONE = new MomentSet(new long[0]);

  /** bounds[2i], bounds[2i+1]: from and to of interval i. */
  private final long[] bounds;

  private MomentSet(long[] bounds) {
    this.bounds = bounds;
  }

  /** Every moment from {@code micros} on. */
  public static MomentSet from(long micros) {
    return interval(micros, END);
  }

  /** The single moment {@code micros}. */
  public static MomentSet point(long micros) {
    return interval(micros, micros == END ? END : micros + 1);
  }

  /** The moments {@code [from, to)}; empty when {@code to <= from}. */
  public static MomentSet interval(long from, long to) {
    long start = Math.max(0, from);
    return to <= start ? NONE : new MomentSet(new long[] {start, to});
  }

  /** Intervals in any order, overlapping or not, as {@code [from0, to0, from1, to1, …]}. */
  public static MomentSet of(long... bounds) {
    Builder builder = new Builder();
    for (int i = 0; i + 1 < bounds.length; i += 2) {
      builder.add(bounds[i], bounds[i + 1]);
    }
    return builder.build();
  }

  public boolean isEmpty() {
    return bounds.length == 0;
  }

  /** Whether the set holds every moment. */
  public boolean isAll() {
    return bounds.length == 2 && bounds[0] == 0 && bounds[1] == END;
  }

  public int intervalCount() {
    return bounds.length / 2;
  }

  public long start(int interval) {
    return bounds[2 * interval];
  }

  public long end(int interval) {
    return bounds[2 * interval + 1];
  }

  /** Where the final interval starts when it goes on forever (the window); {@link #END} when none does. */
  public long floor() {
    return bounds.length > 0 && bounds[bounds.length - 1] == END ? bounds[bounds.length - 2] : END;
  }

  /** Whether {@code micros} is in the set. */
  public boolean contains(long micros) {
    int i = lastStartAtOrBefore(micros);
    return i >= 0 && micros < bounds[2 * i + 1];
  }

  /** Whether the set holds any moment of {@code [from, to)}. */
  public boolean intersects(long from, long to) {
    if (to <= from) {
      return false;
    }
    int i = lastStartAtOrBefore(to - 1);
    return i >= 0 && bounds[2 * i + 1] > from;
  }

  /** Whether every moment of {@code other} is in this set. */
  public boolean containsAll(MomentSet other) {
    for (int j = 0; j < other.intervalCount(); j++) {
      int i = lastStartAtOrBefore(other.start(j));
      if (i < 0 || bounds[2 * i + 1] < other.end(j)) {
        return false;
      }
    }
    return true;
  }

  /** The latest moment of the set before {@code micros}, or -1 if none. */
  public long latestBefore(long micros) {
    int i = lastStartAtOrBefore(micros - 1);
    return i < 0 ? -1 : Math.min(micros - 1, bounds[2 * i + 1] - 1);
  }

  /** The earliest moment of the set after {@code micros}, or -1 if none. */
  public long earliestAfter(long micros) {
    if (micros == END) {
      return -1;
    }
    if (contains(micros + 1)) {
      return micros + 1;
    }
    int i = lastStartAtOrBefore(micros) + 1;
    return 2 * i < bounds.length ? bounds[2 * i] : -1;
  }

  /** Index of the last interval starting at or before {@code micros}, or -1. */
  private int lastStartAtOrBefore(long micros) {
    int lo = 0;
    int hi = bounds.length / 2 - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (bounds[2 * mid] <= micros) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  public MomentSet union(MomentSet other) {
    if (other.isEmpty() || this.isAll()) {
      return this;
    }
    if (this.isEmpty() || other.isAll()) {
      return other;
    }
    Builder builder = new Builder(bounds.length + other.bounds.length);
    builder.addAll(this);
    builder.addAll(other);
    return builder.build();
  }

  public MomentSet intersect(MomentSet other) {
    if (other.isAll() || this.isEmpty()) {
      return this;
    }
    if (this.isAll() || other.isEmpty()) {
      return other;
    }
    long[] out = new long[bounds.length + other.bounds.length];
    int n = 0;
    int i = 0;
    int j = 0;
    while (i < bounds.length && j < other.bounds.length) {
      long from = Math.max(bounds[i], other.bounds[j]);
      long to = Math.min(bounds[i + 1], other.bounds[j + 1]);
      if (from < to) {
        out[n++] = from;
        out[n++] = to;
      }
      if (bounds[i + 1] < other.bounds[j + 1]) {
        i += 2;
      } else {
        j += 2;
      }
    }
    return n == 0 ? NONE : new MomentSet(Arrays.copyOf(out, n));
  }

  /** The moments of this set in {@code [from, to)}. */
  public MomentSet within(long from, long to) {
    return intersect(interval(from, to));
  }

  public MomentSetProto toProto() {
    MomentSetProto.Builder proto = MomentSetProto.newBuilder();
    for (long bound : bounds) {
      proto.addBounds(bound);
    }
    return proto.build();
  }

  public static MomentSet fromProto(MomentSetProto proto) {
    Builder builder = new Builder(proto.getBoundsCount());
    for (int i = 0; i + 1 < proto.getBoundsCount(); i += 2) {
      builder.add(proto.getBounds(i), proto.getBounds(i + 1));
    }
    return builder.build();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof MomentSet && Arrays.equals(bounds, ((MomentSet) other).bounds);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bounds);
  }

  /** {@code [from, to)} per interval in ISO time, "…" for an open end; single moments as themselves. */
  @Override
  public String toString() {
    if (isAll()) {
      return "every moment";
    }
    if (isEmpty()) {
      return "no moment";
    }
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < intervalCount(); i++) {
      if (i > 0) {
        text.append(", ");
      }
      if (end(i) == start(i) + 1) {
        text.append(TimeText.isoMicros(start(i)));
      } else {
        text.append('[').append(TimeText.isoMicros(start(i))).append(", ")
            .append(end(i) == END ? "…" : TimeText.isoMicros(end(i))).append(')');
      }
    }
    return text.toString();
  }

  /** Collects intervals in any order and merges them into a set. */
  public static final class Builder {
    private long[] raw;
    private int size;

    public Builder() {
      this(16);
    }

    Builder(int capacity) {
      raw = new long[Math.max(2, capacity)];
    }

    /** Adds {@code [from, to)} (nothing when empty). */
    public Builder add(long from, long to) {
      long start = Math.max(0, from);
      if (to <= start) {
        return this;
      }
      if (size + 2 > raw.length) {
        raw = Arrays.copyOf(raw, raw.length * 2);
      }
      raw[size++] = start;
      raw[size++] = to;
      return this;
    }

    public Builder addAll(MomentSet set) {
      for (int i = 0; i < set.intervalCount(); i++) {
        add(set.start(i), set.end(i));
      }
      return this;
    }

    public MomentSet build() {
      int count = size / 2;
      if (count == 0) {
        return NONE;
      }
      Integer[] order = new Integer[count];
      for (int i = 0; i < count; i++) {
        order[i] = i;
      }
      Arrays.sort(order, (a, b) -> Long.compare(raw[2 * a], raw[2 * b]));
      long[] out = new long[size];
      int n = 0;
      for (int k : order) {
        long from = raw[2 * k];
        long to = raw[2 * k + 1];
        if (n > 0 && from <= out[n - 1]) {
          out[n - 1] = Math.max(out[n - 1], to);  // overlapping or adjacent: one interval
        } else {
          out[n++] = from;
          out[n++] = to;
        }
      }
      return new MomentSet(Arrays.copyOf(out, n));
    }
  }
}
