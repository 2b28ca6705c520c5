package io.fffs.namenode.namespace;

import io.fffs.common.proto.NamenodeEditsProtos.BlockKeysOp;
import io.fffs.common.proto.NamenodeEditsProtos.DelegationKeyOp;
import io.fffs.common.proto.NamenodeEditsProtos.DelegationTokenOp;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.thirdparty.protobuf.ByteString;

/**
 * The secrets the NameNode keeps across restarts: delegation-token master keys and live tokens with their renew
 * dates, and the block-token keys, as the edit log and the image carry them ({@code DelegationKeyOp},
 * {@code DelegationTokenOp}, {@code BlockKeysOp}). Changed only by {@link NamespaceApplier}; the NameNode's token
 * secret manager and block-token issuer are loaded from it at start.
 */
public final class DelegationState {
  private final Map<Integer, DelegationKeyOp> keys = new TreeMap<>();
  private final Map<ByteString, DelegationTokenOp> tokens = new LinkedHashMap<>();
  private BlockKeysOp blockKeys;

  void apply(DelegationKeyOp op) {
    if (op.getRemoved()) {
      keys.remove(op.getKeyId());
    } else {
      keys.put(op.getKeyId(), op);
    }
  }

  void apply(DelegationTokenOp op) {
    if (op.getRemoved()) {
      tokens.remove(op.getIdentifier());
    } else {
      tokens.put(op.getIdentifier(), op);
    }
  }

  void apply(BlockKeysOp op) {
    blockKeys = op;
  }

  /** The block-token keys as last logged, or null if none were. */
  public BlockKeysOp blockKeys() {
    return blockKeys;
  }

  /** The master key {@code keyId} as logged, or null (never logged, or removed). */
  public DelegationKeyOp key(int keyId) {
    return keys.get(keyId);
  }

  /** The token with these identifier bytes as last logged, or null (never issued here, cancelled or expired). */
  public DelegationTokenOp token(ByteString identifier) {
    return tokens.get(identifier);
  }

  public Collection<DelegationKeyOp> keys() {
    return keys.values();
  }

  public Collection<DelegationTokenOp> tokens() {
    return tokens.values();
  }
}
