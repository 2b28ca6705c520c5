package io.fffs.datanode.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.security.BlockAccessMode;
import io.fffs.common.security.BlockTokenVerifier;

/**
 * The token each data operation needs ({@code DataTransfer.proto}): READ for READ, LOCAL_READ and BLOCK_CHECKSUM,
 * WRITE for WRITE, SYNC (every block named), TRUNCATE, REPLICA_OPEN and REPLICA_END, either for BLOCK_INFO and
 * BLOCK_LOG. Checked before anything is served or queued — by the TCP data server and by the UCX side channel alike.
 * A writer's WRITE and REPLICA_OPEN also pass the block's writer fence ({@code STALE_WRITER} for a writer whose file
 * was taken over).
 */
public final class BlockAccess {
  private BlockAccess() {}

  /** Refuses {@code request} with {@code ACCESS_DENIED} unless it carries a valid token for each of its blocks. */
  public static void check(BlockTokenVerifier verifier, RequestHeaderProto request) throws FffsException {
    if (!verifier.enforcing()) {
      return;
    }
    switch (request.getOp()) {
      case WRITE:
        if (request.hasWrite()) {
          verifier.checkWriter(request.getTokensList(), request.getWrite().getBlockId(),
              request.getWrite().getWriterEpoch(), "WRITE");
        }
        return;
      case READ:
      case LOCAL_READ:
        if (request.hasRead()) {
          verifier.check(request.getTokensList(), request.getRead().getBlockId(), BlockAccessMode.READ, "READ");
        }
        return;
      case BLOCK_CHECKSUM:
        if (request.hasBlockChecksum()) {
          verifier.check(request.getTokensList(), request.getBlockChecksum().getBlockId(), BlockAccessMode.READ,
              "BLOCK_CHECKSUM");
        }
        return;
      case BLOCK_INFO:
        if (request.hasBlockInfo()) {
          verifier.check(request.getTokensList(), request.getBlockInfo().getBlockId(), null, "BLOCK_INFO");
        }
        return;
      case BLOCK_LOG:
        if (request.hasBlockLog()) {
          verifier.check(request.getTokensList(), request.getBlockLog().getBlockId(), null, "BLOCK_LOG");
        }
        return;
      case TRUNCATE:
        if (request.hasTruncate()) {
          verifier.check(request.getTokensList(), request.getTruncate().getBlockId(), BlockAccessMode.WRITE,
              "TRUNCATE");
        }
        return;
      case REPLICA_OPEN:
        if (request.hasReplicaOpen()) {
          verifier.checkWriter(request.getTokensList(), request.getReplicaOpen().getBlockId(), -1, "REPLICA_OPEN");
        }
        return;
      case REPLICA_END:
        if (request.hasReplicaEnd()) {
          verifier.check(request.getTokensList(), request.getReplicaEnd().getBlockId(), BlockAccessMode.WRITE,
              "REPLICA_END");
        }
        return;
      case TRANSFER_BLOCK:
        if (request.hasTransferBlock()) {
          verifier.check(request.getTokensList(), request.getTransferBlock().getBlockId(), BlockAccessMode.WRITE,
              "TRANSFER_BLOCK");
        }
        return;
      case SYNC:
        if (request.hasSync()) {
          for (long blockId : request.getSync().getBlockIdsList()) {
            verifier.check(request.getTokensList(), blockId, BlockAccessMode.WRITE, "SYNC");
          }
        }
        return;
      default:
        throw new FffsException(ErrorCode.ACCESS_DENIED, "operation " + request.getOp() + " is refused: no block "
            + "access token can grant it");
    }
  }
}
