package io.fffs.namenode.lease;

import io.fffs.common.proto.DatanodeProtocolProtos.WriterFenceProto;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells DataNodes of writer fences, so a writer whose file was taken over cannot change it any more. Lease recovery
 * raises the file's writer epoch (logged), publishes a fence naming the file's blocks and the new epoch here, and
 * waits until every live DataNode has confirmed it before it stamps the recovery: a DataNode installs the fences of a
 * heartbeat answer (after the writes it already admitted are applied) and reports the highest fence sequence number
 * it holds in its next heartbeat. From then on it refuses the old writer's packets ({@code STALE_WRITER}), so none of
 * them is stamped after the recovery.
 *
 * <p>Why the NameNode tells the DataNodes rather than only putting the epoch in tokens: a token only reaches a
 * DataNode with the new writer's first packet, and until then the old writer could keep writing after the recovery.
 * The epoch is in the tokens too, which fences the old writer on a DataNode the NameNode could not reach in time.
 *
 * <p>A fence is kept until every token of a lower epoch has expired (the token lifetime after it was raised) and
 * is sent again to every DataNode that registers. Thread-safe.
 */
public final class WriterFencing {
  private static final Logger LOG = LoggerFactory.getLogger(WriterFencing.class);

  private final boolean enabled;
  private final long lifetimeMillis;
  private final LongSupplier nowMillis;
  private final Deque<WriterFenceProto> fences = new ArrayDeque<>();
  /** Per DataNode: the highest fence sequence number it said it holds. */
  private final Map<String, Long> confirmed = new HashMap<>();
  private long lastSeq;

  /**
   * @param enabled whether writers are fenced (only with block tokens, which carry the epoch)
   * @param lifetimeMillis the block token lifetime: how long a fence must last
   * @param nowMillis the NameNode's clock, in ms since the epoch (what token expiry is measured in)
   */
  public WriterFencing(boolean enabled, long lifetimeMillis, LongSupplier nowMillis) {
    this.enabled = enabled;
    this.lifetimeMillis = lifetimeMillis;
    this.nowMillis = nowMillis;
  }

  public boolean enabled() {
    return enabled;
  }

  /** Publishes a fence: writes to {@code blockIds} under an epoch below {@code epoch} are refused. */
  public synchronized long publish(long epoch, long[] blockIds) {
    expire();
    WriterFenceProto.Builder fence = WriterFenceProto.newBuilder().setSeq(++lastSeq).setEpoch(epoch)
        .setExpiryMillis(nowMillis.getAsLong() + lifetimeMillis);
    for (long blockId : blockIds) {
      fence.addBlockIds(blockId);
    }
    fences.addLast(fence.build());
    return lastSeq;
  }

  /** Every fence in force, for a DataNode that registers (it holds none of this NameNode's yet). */
  public synchronized List<WriterFenceProto> forRegistration(String uuid) {
    expire();
    confirmed.put(uuid, 0L);
    return new ArrayList<>(fences);
  }

  /**
   * Records that DataNode {@code uuid} holds every fence up to {@code heldSeq}; returns those it has not confirmed
   * yet (usually none), to send with the heartbeat answer.
   */
  public synchronized List<WriterFenceProto> forHeartbeat(String uuid, long heldSeq) {
    Long before = confirmed.put(uuid, heldSeq);
    if (before == null || before < heldSeq) {
      notifyAll();
    }
    if (fences.isEmpty() || fences.peekLast().getSeq() <= heldSeq) {
      return List.of();
    }
    expire();
    List<WriterFenceProto> unsent = new ArrayList<>();
    for (WriterFenceProto fence : fences) {
      if (fence.getSeq() > heldSeq) {
        unsent.add(fence);
      }
    }
    return unsent;
  }

  /**
   * Waits until every DataNode {@code live} names has confirmed fence {@code seq}, or {@code timeoutMillis}
   * passed; returns the DataNodes that had not (logged: they may still apply the old writer's packets until they
   * hear of the fence).
   *
   * @param live the DataNodes alive now (asked again while waiting: a DataNode that dies is not waited for)
   */
  public synchronized List<String> awaitConfirmed(long seq, Supplier<Collection<String>> live, long timeoutMillis)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (true) {
      List<String> missing = unconfirmed(seq, live.get());
      long left = deadline - System.nanoTime();
      if (missing.isEmpty()) {
        return missing;
      }
      if (left <= 0) {
        LOG.warn("DataNodes {} did not confirm writer fence {} within {} ms; they refuse the old writer once they"
            + " hear of it", missing, seq, timeoutMillis);
        return missing;
      }
      // Woken by each confirmation; the periodic wake-up notices DataNodes that died meanwhile.
      TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
    }
  }

  /**
   * The DataNodes {@code live} names that have not confirmed fence {@code seq} yet (no waiting). Only DataNodes that
   * registered through the protocol carry fences (not those a test only heartbeats).
   */
  public synchronized List<String> unconfirmed(long seq, Collection<String> live) {
    List<String> missing = new ArrayList<>();
    for (String uuid : live) {
      Long held = confirmed.get(uuid);
      if (held != null && held < seq) {
        missing.add(uuid);
      }
    }
    return missing;
  }

  /** How many fences are in force (metrics, tests). */
  public synchronized int size() {
    return fences.size();
  }

  private void expire() {
    long now = nowMillis.getAsLong();
    while (!fences.isEmpty() && fences.peekFirst().getExpiryMillis() < now) {
      fences.removeFirst();
    }
  }
}
