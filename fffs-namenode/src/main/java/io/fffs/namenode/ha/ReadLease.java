package io.fffs.namenode.ha;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The leader's read lease: how long it may answer the latest state by itself. A follower that answers an
 * AppendEntries request sent at {@code s} (by the leader's clock) has reset its election timer after {@code s}, and
 * rejects pre-votes until a minimum election timeout later; so while a majority (the leader among them) has answered
 * requests sent at or after {@code s}, no other leader can be elected before {@code s} plus that timeout. The lease
 * runs {@code leaseNanos} (shorter than that timeout, which leaves room for clocks that run at different rates) from
 * the send time of the request the slowest member of the newest majority answered.
 *
 * <p>{@link #holds} is one volatile read and a clock reading: the appenders' answers move the lease forward, readers
 * only compare. An epoch is one term of leading (Ratis's leader state); answers of an earlier epoch never count.
 */
final class ReadLease {
  private final long leaseNanos;
  /** How many other members must have answered for a majority (the leader counts itself). */
  private final int othersNeeded;
  private final LongSupplier nanoTime;
  private final Object lock = new Object();
  /** The leader state whose appenders' answers count; null while not leading. Guarded by {@link #lock}. */
  private Object epoch;
  /** While set (the lead is being handed over), answers do not extend the lease. Guarded by {@link #lock}. */
  private boolean suspended;
  /** Answers to requests sent before this (nanos) do not count: see {@link #resume}. Guarded by {@link #lock}. */
  private long countsFrom;
  /** Per member: the newest send time (nanos) of a request it answered in this epoch. Guarded by {@link #lock}. */
  private final Map<String, Long> answered = new HashMap<>();
  /** Per member: asks its appender for a heartbeat now. Guarded by {@link #lock}. */
  private final Map<String, Runnable> heartbeats = new HashMap<>();
  private int waiters;
  private volatile long validUntil;

  /**
   * @param leaseNanos how long the lease runs from a send time; below the minimum election timeout
   * @param members the Raft group's size (the leader included)
   */
  ReadLease(long leaseNanos, int members, LongSupplier nanoTime) {
    this.leaseNanos = leaseNanos;
    this.othersNeeded = members / 2;
    this.nanoTime = nanoTime;
    this.validUntil = nanoTime.getAsLong();
    this.countsFrom = validUntil;
  }

  long leaseNanos() {
    return leaseNanos;
  }

  /** Whether the lease holds now (always in a group of one). */
  boolean holds() {
    return othersNeeded == 0 || nanoTime.getAsLong() - validUntil < 0;
  }

  /** The appender of {@code member} in leader state {@code state}: a new state starts a new epoch. */
  void appender(Object state, String member, Runnable heartbeat) {
    synchronized (lock) {
      if (state != epoch) {
        epoch = state;
        suspended = false;
        answered.clear();
        heartbeats.clear();
        validUntil = nanoTime.getAsLong();
        countsFrom = validUntil;
      }
      heartbeats.put(member, heartbeat);
    }
  }

  /** {@code member} answered, in leader state {@code state}, a request sent at {@code sentNanos}. */
  void answered(Object state, String member, long sentNanos) {
    synchronized (lock) {
      if (state != epoch || suspended || sentNanos - countsFrom < 0) {
        return;
      }
      answered.merge(member, sentNanos, (a, b) -> a - b < 0 ? b : a);
      if (answered.size() < othersNeeded) {
        return;
      }
      long[] sent = new long[answered.size()];
      int i = 0;
      for (long s : answered.values()) {
        sent[i++] = s - sentNanos;  // relative to this answer: nanoTime values order by difference only
      }
      Arrays.sort(sent);
      long until = sentNanos + sent[sent.length - othersNeeded] + leaseNanos;
      if (until - validUntil > 0) {
        validUntil = until;
        if (waiters > 0) {
          lock.notifyAll();
        }
      }
    }
  }

  /** Ends the epoch: this server no longer leads. */
  void end() {
    synchronized (lock) {
      epoch = null;
      answered.clear();
      heartbeats.clear();
      validUntil = nanoTime.getAsLong();
      lock.notifyAll();
    }
  }

  /** Voids the lease while the lead is handed over: no answer extends it until {@link #resume}. */
  void suspend() {
    synchronized (lock) {
      suspended = true;
      answered.clear();
      validUntil = nanoTime.getAsLong();
    }
  }

  /**
   * The hand-over failed, but the NameNode it went to may still start the election it was asked for (without a
   * pre-vote, so followers' answers here do not stop it): only answers to requests sent {@code quietNanos} from now
   * extend the lease again.
   */
  void resume(long quietNanos) {
    synchronized (lock) {
      suspended = false;
      answered.clear();
      countsFrom = nanoTime.getAsLong() + quietNanos;
    }
  }

  /**
   * Whether the lease holds, waiting up to {@code maxWaitNanos} for it: asks every follower for a heartbeat now, so a
   * leader whose answers came late (a loaded machine) renews it in one round trip, while a leader cut off from the
   * majority waits out the bound and refuses.
   */
  boolean await(long maxWaitNanos) throws InterruptedException {
    if (holds()) {
      return true;
    }
    long deadline = nanoTime.getAsLong() + maxWaitNanos;
    synchronized (lock) {
      if (epoch == null || suspended) {
        return false;
      }
      heartbeats.values().forEach(Runnable::run);
      waiters++;
      try {
        while (!holds()) {
          long remaining = deadline - nanoTime.getAsLong();
          if (remaining <= 0 || epoch == null || suspended) {
            return false;
          }
          lock.wait(Math.max(1, remaining / 1_000_000));
        }
        return true;
      } finally {
        waiters--;
      }
    }
  }
}
