package io.fffs.namenode.security;

import io.fffs.common.proto.NamenodeEditsProtos.BlockKeysOp;
import io.fffs.common.security.BlockKey;
import io.fffs.common.security.BlockKeySet;
import java.util.List;

/** Block-token key sets as the edit log and the image carry them ({@code BlockKeysOp}). */
public final class BlockKeysOps {
  private BlockKeysOps() {}

  public static BlockKeysOp toOp(BlockKeySet keys) {
    BlockKeysOp.Builder op = BlockKeysOp.newBuilder().setCurrent(keys.current().toProto())
        .setNext(keys.next().toProto()).setCurrentUntilMillis(keys.currentUntilMillis());
    keys.retired().forEach(key -> op.addRetired(key.toProto()));
    return op.build();
  }

  /** The kept set, or null when none was logged. */
  public static BlockKeySet fromOp(BlockKeysOp op) {
    if (op == null) {
      return null;
    }
    List<BlockKey> retired = op.getRetiredList().stream().map(BlockKey::fromProto).toList();
    return new BlockKeySet(retired, BlockKey.fromProto(op.getCurrent()), BlockKey.fromProto(op.getNext()),
        op.getCurrentUntilMillis());
  }
}
