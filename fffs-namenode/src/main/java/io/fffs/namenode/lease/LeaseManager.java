package io.fffs.namenode.lease;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * One writer per file: a client holds a lease on the files it writes and renews it while it lives. After the soft
 * limit without a renewal another client may take the file over (lease recovery); after the hard limit the
 * NameNode closes the file itself. Time is a monotonic nanosecond source (injected). Guarded by the namesystem
 * lock.
 */
public final class LeaseManager {
  private static final class Lease {
    final Set<Long> files = new HashSet<>();
    long renewedNanos;
  }

  private final Map<String, Lease> leases = new HashMap<>();
  private final Map<Long, String> holders = new HashMap<>();
  private final LongSupplier nanoTime;
  private final long softLimitNanos;
  private final long hardLimitNanos;

  public LeaseManager(LongSupplier nanoTime, long softLimitNanos, long hardLimitNanos) {
    this.nanoTime = nanoTime;
    this.softLimitNanos = softLimitNanos;
    this.hardLimitNanos = hardLimitNanos;
  }

  /** Gives {@code holder} the lease on file {@code inodeId} (and renews it). */
  public synchronized void add(String holder, long inodeId) {
    Lease lease = leases.computeIfAbsent(holder, h -> new Lease());
    lease.files.add(inodeId);
    lease.renewedNanos = nanoTime.getAsLong();
    String previous = holders.put(inodeId, holder);
    if (previous != null && !previous.equals(holder)) {
      dropFile(previous, inodeId);
    }
  }

  /** Ends the lease on {@code inodeId}, whoever held it. */
  public synchronized void remove(long inodeId) {
    String holder = holders.remove(inodeId);
    if (holder != null) {
      dropFile(holder, inodeId);
    }
  }

  private void dropFile(String holder, long inodeId) {
    Lease lease = leases.get(holder);
    if (lease != null) {
      lease.files.remove(inodeId);
      if (lease.files.isEmpty()) {
        leases.remove(holder);
      }
    }
  }

  /** Renews every lease of {@code holder}; false if it holds none. */
  public synchronized boolean renew(String holder) {
    Lease lease = leases.get(holder);
    if (lease == null) {
      return false;
    }
    lease.renewedNanos = nanoTime.getAsLong();
    return true;
  }

  /** The client writing {@code inodeId}, or null. */
  public synchronized String holder(long inodeId) {
    return holders.get(inodeId);
  }

  /** Whether the holder of {@code inodeId} has not renewed for longer than the soft limit. */
  public synchronized boolean softExpired(long inodeId) {
    String holder = holders.get(inodeId);
    return holder == null || nanoTime.getAsLong() - leases.get(holder).renewedNanos > softLimitNanos;
  }

  /** Whether {@code inodeId} has a holder that has not renewed for longer than the hard limit. */
  public synchronized boolean hardExpired(long inodeId) {
    String holder = holders.get(inodeId);
    return holder != null && nanoTime.getAsLong() - leases.get(holder).renewedNanos > hardLimitNanos;
  }

  /** Files whose holder has not renewed for longer than the hard limit: the NameNode closes them. */
  public synchronized List<Long> hardExpiredFiles() {
    List<Long> expired = new ArrayList<>();
    long now = nanoTime.getAsLong();
    for (Lease lease : leases.values()) {
      if (now - lease.renewedNanos > hardLimitNanos) {
        expired.addAll(lease.files);
      }
    }
    return expired;
  }

  /** The files under lease now: those being written. */
  public synchronized List<Long> files() {
    return new ArrayList<>(holders.keySet());
  }

  public synchronized int size() {
    return holders.size();
  }
}
