package io.fffs.common.time;

/**
 * The one source of wall-clock time in FFFS (Agrona's {@code EpochClock} is the model): every component takes one
 * by injection, so tests can run nodes on manual or skewed clocks. No other code reads the wall clock.
 */
@FunctionalInterface
public interface PhysicalClock {
  /** Microseconds since the Unix epoch. May jump backwards (NTP steps); the HLC tolerates that. */
  long currentTimeMicros();

  /** The wall clock of this machine, at microsecond resolution. */
  static PhysicalClock system() {
    return SystemPhysicalClock.INSTANCE;
  }

  /** This clock shifted by {@code offsetMicros} (positive: ahead). For tests that skew a node's clock. */
  default PhysicalClock offsetBy(long offsetMicros) {
    PhysicalClock base = this;
    return () -> base.currentTimeMicros() + offsetMicros;
  }
}
