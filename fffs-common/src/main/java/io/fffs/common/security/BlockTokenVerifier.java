package io.fffs.common.security;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.BlockTokenProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockKeysProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockKeyProto;
import io.fffs.common.time.PhysicalClock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import javax.crypto.Mac;

/**
 * The DataNode's side of block access tokens: the key set last received from the NameNode (at registration and
 * in every heartbeat answer) and the check every data operation passes. Until the NameNode has sent keys, every
 * operation is refused; a NameNode that issues no tokens turns the checks off. A refusal is
 * {@code ACCESS_DENIED} naming the operation, the block, the mode and why. Thread-safe.
 */
public final class BlockTokenVerifier {
  /** One key set as received; each thread keeps its own {@link Mac} per key. */
  private static final class KeySet {
    final boolean enabled;
    final boolean received;
    final Map<Integer, BlockKey> keys;
    final ThreadLocal<Map<Integer, Mac>> macs = ThreadLocal.withInitial(HashMap::new);

    KeySet(boolean enabled, boolean received, Map<Integer, BlockKey> keys) {
      this.enabled = enabled;
      this.received = received;
      this.keys = keys;
    }

    Mac mac(BlockKey key) {
      return macs.get().computeIfAbsent(key.keyId(), id -> key.newMac());
    }
  }

  private final boolean locallyEnabled;
  private final PhysicalClock clock;
  private final WriterFences fences;
  private volatile KeySet keySet = new KeySet(true, false, Map.of());

  /** @param locallyEnabled false: check nothing whatever the NameNode says (a DataNode without a NameNode) */
  public BlockTokenVerifier(boolean locallyEnabled, PhysicalClock clock) {
    this.locallyEnabled = locallyEnabled;
    this.clock = clock;
    this.fences = new WriterFences(clock);
  }

  /** The writer fences of this DataNode: raised by the NameNode's fences and by WRITE tokens of higher epochs. */
  public WriterFences fences() {
    return fences;
  }

  /** Replaces the key set with the NameNode's. */
  public void update(BlockKeysProto received) {
    Map<Integer, BlockKey> keys = new HashMap<>();
    for (BlockKeyProto key : received.getKeysList()) {
      keys.put(key.getKeyId(), BlockKey.fromProto(key));
    }
    KeySet old = keySet;
    if (old.received && old.enabled == received.getEnabled() && old.keys.equals(keys)) {
      return;  // the usual heartbeat: nothing rolled; keep the threads' MACs
    }
    keySet = new KeySet(received.getEnabled(), true, Map.copyOf(keys));
  }

  /** True while data operations need tokens. */
  public boolean enforcing() {
    return locallyEnabled && keySet.enabled;
  }

  /** The ids of the keys this DataNode knows. */
  public java.util.Set<Integer> keyIds() {
    return new TreeSet<>(keySet.keys.keySet());
  }

  /**
   * Refuses unless {@code tokens} hold a valid token for {@code blockId} granting {@code mode} (either mode when
   * {@code mode} is null: BLOCK_INFO).
   *
   * @param op the operation, as the refusal names it
   * @return the token, or null when tokens are not checked
   */
  public BlockToken check(List<BlockTokenProto> tokens, long blockId, BlockAccessMode mode, String op)
      throws FffsException {
    KeySet set = keySet;
    if (!locallyEnabled || !set.enabled) {
      return null;
    }
    String what = op + " of block " + blockId + " refused";
    if (!set.received) {
      throw denied(what + ": this DataNode has no block keys from the NameNode yet, so it cannot check tokens");
    }
    BlockTokenProto found = null;
    for (BlockTokenProto token : tokens) {
      if (token.getBlockId() == blockId) {
        found = token;
        break;
      }
    }
    if (found == null) {
      throw denied(what + (tokens.isEmpty()
          ? ": the request carries no block access token; get the block from the NameNode, which issues them"
          : ": its token is for block " + tokens.get(0).getBlockId() + ", not this one"));
    }
    BlockToken token = BlockToken.fromProto(found);
    BlockKey key = set.keys.get(token.keyId());
    if (key == null) {
      throw denied(what + ": the token of " + token.user() + " is signed with key " + token.keyId()
          + ", which this DataNode does not know (it knows " + new TreeSet<>(set.keys.keySet())
          + "); ask the NameNode for a new one");
    }
    if (!token.signedBy(set.mac(key))) {
      throw denied(what + ": the token of " + token.user() + " has a bad signature (forged or altered)");
    }
    if (mode != null && token.mode() != mode) {
      throw denied(what + ": the token of " + token.user() + " grants " + token.mode() + ", not " + mode);
    }
    long now = clock.currentTimeMicros() / 1000;
    if (now > token.expiryMillis()) {
      throw denied(what + ": the " + token.mode() + " token of " + token.user() + " expired at "
          + Instant.ofEpochMilli(token.expiryMillis()) + "; ask the NameNode for a new one");
    }
    return token;
  }

  /**
   * {@link #check} for a writer's operation (WRITE, REPLICA_OPEN): also refuses a token whose writer epoch a fence
   * of the block has superseded ({@code STALE_WRITER}), and lets a token of a higher epoch raise the fence, so a new
   * writer's first packet fences older writers even before the NameNode's fence arrives.
   *
   * @param writerEpoch the epoch the request says it was sent under (must be the token's), or -1 to skip that
   */
  public void checkWriter(List<BlockTokenProto> tokens, long blockId, long writerEpoch, String op)
      throws FffsException {
    BlockToken token = check(tokens, blockId, BlockAccessMode.WRITE, op);
    if (token == null) {
      return;
    }
    if (writerEpoch >= 0 && writerEpoch != token.writerEpoch()) {
      throw denied(op + " of block " + blockId + " refused: it says writer epoch " + writerEpoch + " but its token"
          + " of " + token.user() + " was issued for epoch " + token.writerEpoch());
    }
    fences.check(blockId, token.writerEpoch(), op + " of block " + blockId);
    fences.raise(blockId, token.writerEpoch(), token.expiryMillis());
  }

  private static FffsException denied(String sentence) {
    return new FffsException(ErrorCode.ACCESS_DENIED, sentence);
  }
}
