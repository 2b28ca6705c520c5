package io.fffs.namenode.safemode;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeText;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up safe mode, as in HDFS: until the DataNodes have reported enough of the blocks the namespace refers to
 * (a fraction, default 99.9%), or a timeout passes, the NameNode answers queries but refuses changes with
 * {@code SAFE_MODE}, so nothing is decided on a partial view of the cluster.
 */
public final class SafeMode {
  private static final Logger LOG = LoggerFactory.getLogger(SafeMode.class);

  private final Set<Long> expected;
  private final Set<Long> reported = ConcurrentHashMap.newKeySet();
  private final float threshold;
  /** Reported blocks that end safe mode. */
  private final long needed;
  private final long deadlineNanos;
  private final long timeoutNanos;
  private final LongSupplier nanoTime;
  private volatile boolean on;
  /** Entered by an administrator: only an administrator ends it. */
  private volatile boolean manual;
  private final boolean takingLead;

  public SafeMode(Set<Long> expectedBlocks, float threshold, long timeoutNanos, LongSupplier nanoTime) {
    this(expectedBlocks, threshold, timeoutNanos, nanoTime, false);
  }

  /**
   * @param takingLead the safe mode of a NameNode that just took the lead of an HA cluster: its refusals are
   *     {@code LEADER_STARTING}, which clients retry
   */
  public SafeMode(Set<Long> expectedBlocks, float threshold, long timeoutNanos, LongSupplier nanoTime,
      boolean takingLead) {
    this.takingLead = takingLead;
    this.expected = expectedBlocks;
    this.threshold = threshold;
    // In decimal: the float 0.999f is a hair above 0.999, and 1000 × it would round up to all 1000 blocks.
    this.needed = new BigDecimal(Float.toString(threshold)).multiply(BigDecimal.valueOf(expectedBlocks.size()))
        .setScale(0, RoundingMode.CEILING).longValueExact();
    this.timeoutNanos = timeoutNanos;
    this.nanoTime = nanoTime;
    this.deadlineNanos = nanoTime.getAsLong() + timeoutNanos;
    this.on = !expectedBlocks.isEmpty();
    if (on) {
      LOG.info("Safe mode: waiting for {} blocks to be reported (threshold {}, timeout {})", expected.size(),
          threshold, TimeText.duration(timeoutNanos / 1000));
    }
  }

  /** A DataNode reported {@code blockId}. */
  public void reported(long blockId) {
    if (on && expected.contains(blockId)) {
      reported.add(blockId);
      check();
    }
  }

  /** Whether safe mode is on (re-evaluating the timeout). */
  public boolean isOn() {
    if (on) {
      check();
    }
    return on;
  }

  private void check() {
    if (manual) {
      return;
    }
    if (reported.size() >= needed) {
      leave("blocks reported: " + reported.size() + " of " + expected.size());
    } else if (nanoTime.getAsLong() >= deadlineNanos) {
      leave("timeout after " + TimeText.duration(timeoutNanos / 1000) + " with " + reported.size() + " of "
          + expected.size() + " blocks reported; the rest stay unreadable until their DataNodes report");
    }
  }

  /** Enters safe mode until {@link #leave} (admin): changes are refused meanwhile. */
  public synchronized void enter(String why) {
    manual = true;
    if (!on) {
      on = true;
      LOG.info("Entering safe mode: {}", why);
    }
  }

  /** Leaves safe mode now (admin or test). */
  public synchronized void leave(String why) {
    manual = false;
    if (on) {
      on = false;
      LOG.info("Leaving safe mode: {}", why);
    }
  }

  /** Refuses a change while safe mode is on. */
  public void checkOff(String what) throws FffsException {
    if (isOn() && manual) {
      throw new FffsException(ErrorCode.SAFE_MODE, "the NameNode is in safe mode and refuses " + what
          + ": an administrator entered it (bin/fffs admin -safemode leave ends it)");
    }
    if (isOn()) {
      throw new FffsException(takingLead ? ErrorCode.LEADER_STARTING : ErrorCode.SAFE_MODE, (takingLead
          ? "the NameNode took the lead and waits for the DataNodes' block reports; it refuses "
          : "the NameNode is in safe mode and refuses ") + what + ": " + reported.size() + " of " + expected.size()
          + " blocks reported so far; it leaves when " + Math.round(threshold * 1000) / 10.0
          + "% are reported or after " + TimeText.duration(timeoutNanos / 1000) + " — retry shortly");
    }
  }

  public String describe() {
    if (on && manual) {
      return "on (entered by an administrator; bin/fffs admin -safemode leave ends it)";
    }
    return on ? "on: " + reported.size() + " of " + expected.size() + " blocks reported" : "off";
  }
}
