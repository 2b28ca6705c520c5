package io.fffs.common.time;

import java.time.Clock;
import java.time.Instant;

/** The machine's wall clock. {@link Clock#systemUTC()} gives microseconds on Linux with Java 17. */
final class SystemPhysicalClock implements PhysicalClock {
  static final SystemPhysicalClock INSTANCE = new SystemPhysicalClock();

  private final Clock clock = Clock.systemUTC();

  private SystemPhysicalClock() {}

  @Override
  public long currentTimeMicros() {
    Instant now = clock.instant();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  @Override
  public String toString() {
    return "system clock";
  }
}
