package io.fffs.namenode.namespace;

import io.fffs.common.proto.NamenodeEditsProtos.DelegationKeyOp;
import io.fffs.common.proto.NamenodeEditsProtos.DelegationTokenOp;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.thirdparty.protobuf.ByteString;

/**
 * The delegation-token secrets the NameNode keeps across restarts: master keys and live tokens with their renew
 * dates, as the edit log and the image carry them ({@code DelegationKeyOp}, {@code DelegationTokenOp}). Changed only
 * by {@link NamespaceApplier}; the NameNode's token secret manager is loaded from it at start.
 */
public final class DelegationState {
  private final Map<Integer, DelegationKeyOp> keys = new TreeMap<>();
  private final Map<ByteString, DelegationTokenOp> tokens = new LinkedHashMap<>();

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

  public Collection<DelegationKeyOp> keys() {
    return keys.values();
  }

  public Collection<DelegationTokenOp> tokens() {
    return tokens.values();
  }
}
