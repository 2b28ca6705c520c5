package io.fffs.namenode.fs;

import io.fffs.namenode.NameNodeConfigKeys;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.RetryCache;
import org.apache.hadoop.ipc.RetryCache.CacheEntryWithPayload;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;

/**
 * The answers of recent changes by Hadoop IPC client id and call id (Hadoop's {@link RetryCache} as a library). A
 * client that lost its connection before the answer came retries the call with the same ids; the NameNode then gives
 * the first answer again instead of making the change twice (a second create would replace the file, a second rename
 * would fail). A call whose first attempt is still running waits for it; one whose first attempt failed runs again.
 * The cache holds answers only once their change is durable, so it never answers with a change a crash could lose.
 */
public final class RetryAnswers {
  /** A change under way: what {@link #begin} found or started. */
  public static final class Attempt {
    private final CacheEntryWithPayload entry;

    private Attempt(CacheEntryWithPayload entry) {
      this.entry = entry;
    }

    /** Whether an earlier attempt of this call succeeded: then {@link #firstAnswer} is the answer. */
    public boolean answered() {
      return entry != null && entry.isSuccess();
    }

    public Object firstAnswer() {
      return entry.getPayload();
    }

    /** Whether the change was made by another NameNode or before this one restarted: its answer is not here. */
    public boolean answerElsewhere() {
      return entry.getPayload() == MADE_ELSEWHERE;
    }

    /** The change is durable and {@code answer} is its answer: a retry gets it. */
    public void succeeded(Object answer) {
      if (entry != null) {
        RetryCache.setState(entry, true, answer);
      }
    }

    /** The change failed: a retry runs it again. */
    public void failed() {
      if (entry != null) {
        RetryCache.setState(entry, false, null);
      }
    }
  }

  private static final Attempt UNCACHED = new Attempt(null);
  /** The payload of a call made elsewhere or before a restart: not to be made again; its answer is to be rebuilt. */
  private static final Object MADE_ELSEWHERE = new Object();
  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final RetryCache cache;

  private RetryAnswers(RetryCache cache) {
    this.cache = cache;
  }

  static RetryAnswers fromConf(Configuration conf) {
    if (!conf.getBoolean(NameNodeConfigKeys.RETRY_CACHE_ENABLED_KEY,
        NameNodeConfigKeys.RETRY_CACHE_ENABLED_DEFAULT)) {
      return new RetryAnswers(null);
    }
    long expiryMs = NameNodeConfigKeys.millis(conf, NameNodeConfigKeys.RETRY_CACHE_EXPIRY_KEY,
        NameNodeConfigKeys.RETRY_CACHE_EXPIRY_DEFAULT_MS);
    float heapPercent = conf.getFloat(NameNodeConfigKeys.RETRY_CACHE_HEAP_PERCENT_KEY,
        NameNodeConfigKeys.RETRY_CACHE_HEAP_PERCENT_DEFAULT);
    // RetryCache takes its expiry in nanoseconds, and registers metrics under its name: one name per namesystem.
    return new RetryAnswers(new RetryCache("FffsNameNode-" + INSTANCES.incrementAndGet(), heapPercent,
        expiryMs * 1_000_000L));
  }

  public boolean enabled() {
    return cache != null;
  }

  /**
   * Looks up the call {@code callId} of client {@code clientId}: waits while an earlier attempt of it runs, then
   * tells whether it was answered; else this attempt is recorded as running. A call without a client id (not from
   * Hadoop IPC) is not cached.
   */
  public Attempt begin(byte[] clientId, int callId) {
    if (cache == null || clientId == null || clientId.length == 0) {
      return UNCACHED;
    }
    return new Attempt(RetryCache.waitForCompletion(cache, null, clientId, callId));
  }

  /**
   * Records that call {@code callId} of client {@code clientId} was made by another NameNode (its op reached this
   * one through the Raft log) or before this NameNode restarted (its op was replayed from the edit log), for a retry
   * that comes here after the failover or restart.
   */
  public void recordMadeElsewhere(byte[] clientId, int callId) {
    if (cache != null && clientId != null && clientId.length > 0) {
      cache.addCacheEntryWithPayload(clientId, callId, MADE_ELSEWHERE);
    }
  }

  /** Unregisters the cache's metrics (a NameNode started again in this JVM registers its own). */
  void close() {
    if (cache != null) {
      DefaultMetricsSystem.instance().unregisterSource("RetryCache." + cache.getCacheName());
    }
  }
}
