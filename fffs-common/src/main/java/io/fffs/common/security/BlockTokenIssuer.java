package io.fffs.common.security;

import io.fffs.common.proto.DatanodeProtocolProtos.BlockKeysProto;
import io.fffs.common.time.PhysicalClock;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * The NameNode's side of block access tokens: signs tokens with the current key and rolls keys every
 * {@code fffs.security.block-token.key-update-interval}. Besides the current key it keeps the retired keys whose
 * tokens may still be valid (the previous one, when the interval is at least the token lifetime) and the next
 * key, which DataNodes receive one interval before it signs anything — so a DataNode never sees a token signed
 * with a key it has not heard of yet, however late its heartbeat comes after a roll. On its own it rolls when a
 * token is asked for after the interval and keeps keys in memory only; a NameNode instead {@link #keepIn keeps
 * every set in a store} (its edit log) before using it and rolls with {@link #roll} from its monitor, so that a
 * restarted NameNode signs with the same keys and tokens handed out before the restart stay valid. Thread-safe.
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
  /** Null: keys live in memory and roll lazily; else each set is kept here first and rolls come from outside. */
  private BlockKeySet.Store store;
  private final Object rolling = new Object();

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
    // A roll that comes late must not let a token outlive the key that signed it (DataNodes drop keys at expiry).
    long expiry = Math.min(now + lifetimeMillis, current.expiryMillis());
    return BlockToken.sign(current, blockId, mode, user, expiry, writerEpoch);
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

  /** The keys held now. */
  public synchronized BlockKeySet keys() {
    return new BlockKeySet(List.copyOf(retired), current, next, currentUntil);
  }

  /**
   * From now on keeps every key set in {@code store} before it is used, and rolls only through {@link #roll}.
   * Starts from {@code kept} (the set a previous run kept) when its current key has not expired, else from this
   * issuer's own keys, which are kept first.
   */
  public void keepIn(BlockKeySet.Store store, BlockKeySet kept) throws IOException {
    synchronized (rolling) {
      BlockKeySet start = kept != null && kept.current().expiryMillis() > nowMillis() ? kept : keys();
      if (start != kept) {
        store.keep(start);
      }
      synchronized (this) {
        install(start);
        this.store = store;
      }
    }
  }

  /**
   * Signs with {@code kept} from now on, if its current key has not expired, without keeping it anywhere (it is
   * kept already: the keys another NameNode of an HA cluster logged). Returns whether it did.
   */
  public boolean adopt(BlockKeySet kept) {
    synchronized (rolling) {
      synchronized (this) {
        if (kept == null || kept.current().expiryMillis() <= nowMillis()) {
          return false;
        }
        install(kept);
        return true;
      }
    }
  }

  /** Whether the current key has signed for its interval (a kept issuer then awaits {@link #roll}). */
  public synchronized boolean rollDue() {
    return nowMillis() >= currentUntil;
  }

  /**
   * Makes the next key current now (the scheduled roll; early, for tests and an operator's key change). With a
   * store, the new set is kept first: if that fails nothing changes.
   */
  public void roll() throws IOException {
    change(this::rolled);
  }

  /**
   * Replaces every key with new ones now (an operator's answer to a leaked key): tokens signed before stop working
   * at each DataNode's next heartbeat, and their holders ask the NameNode for new ones. With a store, the new set is
   * kept first: if that fails nothing changes.
   */
  public void replaceAllKeys() throws IOException {
    change(now -> {
      long until = now + intervalMillis;
      BlockKey fresh = newKey(until + lifetimeMillis);
      return new BlockKeySet(List.of(), fresh, newKey(until + intervalMillis + lifetimeMillis), until);
    });
  }

  private void change(java.util.function.LongFunction<BlockKeySet> change) throws IOException {
    synchronized (rolling) {
      BlockKeySet after;
      BlockKeySet.Store keeper;
      synchronized (this) {
        after = change.apply(nowMillis());
        keeper = store;
        if (keeper == null) {
          install(after);
          return;
        }
      }
      // Outside this issuer's lock: the store may wait for a disk, and token requests go on meanwhile.
      keeper.keep(after);
      synchronized (this) {
        install(after);
      }
    }
  }

  private void rollIfDue(long now) {
    if (store == null && now >= currentUntil) {
      install(rolled(now));
    }
  }

  private BlockKeySet rolled(long now) {
    List<BlockKey> kept = new ArrayList<>(retired);
    kept.add(current);
    kept.removeIf(key -> key.expiryMillis() < now);
    long until = now + intervalMillis;
    return new BlockKeySet(kept, next, newKey(until + intervalMillis + lifetimeMillis), until);
  }

  private void install(BlockKeySet keys) {
    retired.clear();
    retired.addAll(keys.retired());
    current = keys.current();
    next = keys.next();
    currentUntil = keys.currentUntilMillis();
    lastKeyId = next.keyId();  // the newest key: the next one made continues from it
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
