package io.fffs.client;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a reader does once every replica the NameNode listed for a block failed for a reason of that replica's own
 * ({@link ReplicaFailover}: a connection error, {@code REPLICA_STALE}, {@code NOT_FOUND}, a short answer; not damage
 * its checksums found): it pauses and asks the NameNode for the block's replicas again, as HDFS's reader does, up to
 * {@code fffs.client.read.relocate-attempts} times with pauses doubling from {@code fffs.client.read.relocate-wait}.
 * A NameNode that just restarted lists only the DataNodes that reported so far, which may be a follower whose
 * frontier is short of the time asked while the replica that can answer reports a moment later.
 */
final class ReadRelocation {
  private static final Logger LOG = LoggerFactory.getLogger(ReadRelocation.class);

  /** How many times a read whose listed replicas all failed asks the NameNode for them again. */
  static final String ATTEMPTS_KEY = "fffs.client.read.relocate-attempts";
  static final int ATTEMPTS_DEFAULT = 3;
  /** The pause before the first new listing; each later one waits twice as long. */
  static final String WAIT_KEY = "fffs.client.read.relocate-wait";
  static final long WAIT_DEFAULT_MS = 400;

  private final int attempts;
  private final long waitMillis;

  ReadRelocation(int attempts, long waitMillis) {
    this.attempts = attempts;
    this.waitMillis = waitMillis;
  }

  static ReadRelocation of(Configuration conf) {
    return new ReadRelocation(conf.getInt(ATTEMPTS_KEY, ATTEMPTS_DEFAULT),
        conf.getTimeDuration(WAIT_KEY, WAIT_DEFAULT_MS, TimeUnit.MILLISECONDS));
  }

  /**
   * Whether to ask the NameNode again after {@code error}, the failure of attempt {@code attempt} (from 0) to read
   * {@code what}; pauses first. False when the error is not every listed replica's own or no attempt is left.
   */
  boolean again(IOException error, int attempt, String what) throws InterruptedIOException {
    if (attempt >= attempts || !ReplicaFailover.replicaAlone(error) || damaged(error)) {
      return false;
    }
    long pause = waitMillis << Math.min(attempt, 20);
    LOG.info("No listed replica could answer {} ({}); asking the NameNode for its replicas again in {} ms", what,
        error.getMessage(), pause);
    try {
      Thread.sleep(pause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted = new InterruptedIOException("interrupted waiting to read " + what);
      interrupted.initCause(error);
      throw interrupted;
    }
    return true;
  }

  /** Damage its checksums found: reported to the NameNode, which replaces the replica in its own time. */
  private static boolean damaged(IOException error) {
    return error instanceof FffsException && ((FffsException) error).code() == ErrorCode.CORRUPT
        && !(error instanceof ReplicaFailover.ShortAnswer);
  }
}
