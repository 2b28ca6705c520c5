package io.fffs.common.security;

import io.fffs.common.proto.DatanodeProtocolProtos.BlockKeysProto;
import io.fffs.common.time.PhysicalClock;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.hadoop.conf.Configuration;

/**
 * The NameNode's side of block access tokens: signs tokens with the current key and rolls keys every
 * {@code fffs.security.block-token.key-update-interval}. Besides the current key it keeps the retired keys whose
 * tokens may still be valid (the previous one, when the interval is at least the token lifetime) and the next
 * key, which DataNodes receive one interval before it signs anything — so a DataNode never sees a token signed
 * with a key it has not heard of yet, however late its heartbeat comes after a roll. Keys live only in memory: a
 * NameNode restart starts a new set, DataNodes get it when they register again, and clients holding old tokens
 * ask the NameNode again. Thread-safe.
 */
public final class BlockTokenIssuer {
  private final boolean enabled;
  private final long lifetimeMillis;
  private final long intervalMillis;
  private final PhysicalClock clock;
  private final SecureRandom random = new SecureRandom();
  private final Deque<BlockKey> retired = new ArrayDeque<>();
  private int lastKeyId;
  private BlockKey current;
  private BlockKey next;
  private long currentUntil;

  public BlockTokenIssuer(Configuration conf, PhysicalClock clock) {
    this(BlockTokenConfigKeys.enabled(conf), BlockTokenConfigKeys.lifetimeMillis(conf),
        BlockTokenConfigKeys.keyUpdateIntervalMillis(conf), clock);
  }

  public BlockTokenIssuer(boolean enabled, long lifetimeMillis, long intervalMillis, PhysicalClock clock) {
    this.enabled = enabled;
    this.lifetimeMillis = lifetimeMillis;
    this.intervalMillis = intervalMillis;
    this.clock = clock;
    this.lastKeyId = random.nextInt() & 0x7fffffff;
    long now = nowMillis();
    current = newKey(now + intervalMillis + lifetimeMillis);
    next = newKey(now + 2 * intervalMillis + lifetimeMillis);
    currentUntil = now + intervalMillis;
  }

  public boolean enabled() {
    return enabled;
  }

  public long lifetimeMillis() {
    return lifetimeMillis;
  }

  /** A token of writer epoch 0 for {@code user} to {@code mode} the block, or null when tokens are off. */
  public BlockToken issue(long blockId, BlockAccessMode mode, String user) {
    return issue(blockId, mode, user, 0);
  }

  /** A token for {@code user} to {@code mode} the block under {@code writerEpoch}, or null when tokens are off. */
  public synchronized BlockToken issue(long blockId, BlockAccessMode mode, String user, long writerEpoch) {
    if (!enabled) {
      return null;
    }
    long now = nowMillis();
    rollIfDue(now);
    return BlockToken.sign(current, blockId, mode, user, now + lifetimeMillis, writerEpoch);
  }

  /** The keys DataNodes check tokens with: every key whose tokens may be valid now or soon. */
  public synchronized BlockKeysProto exportKeys() {
    BlockKeysProto.Builder keys = BlockKeysProto.newBuilder().setEnabled(enabled);
    if (!enabled) {
      return keys.build();
    }
    rollIfDue(nowMillis());
    for (BlockKey key : retired) {
      keys.addKeys(key.toProto());
    }
    return keys.addKeys(current.toProto()).addKeys(next.toProto()).build();
  }

  /** The key that signs tokens now. */
  public synchronized int currentKeyId() {
    return current.keyId();
  }

  /** Makes the next key current now (the scheduled roll, early: tests and an operator's key change). */
  public synchronized void roll() {
    roll(nowMillis());
  }

  private void rollIfDue(long now) {
    if (now >= currentUntil) {
      roll(now);
    }
  }

  private void roll(long now) {
    retired.addLast(current);
    current = next;
    currentUntil = now + intervalMillis;
    next = newKey(currentUntil + intervalMillis + lifetimeMillis);
    retired.removeIf(key -> key.expiryMillis() < now);
  }

  private BlockKey newKey(long expiryMillis) {
    byte[] secret = new byte[BlockKey.SECRET_BYTES];
    random.nextBytes(secret);
    lastKeyId = (lastKeyId + 1) & 0x7fffffff;
    return new BlockKey(lastKeyId, secret, expiryMillis);
  }

  private long nowMillis() {
    return clock.currentTimeMicros() / 1000;
  }
}
