package io.fffs.datanode.nn;

import io.fffs.common.history.MomentSet;
import io.fffs.common.ipc.DatanodeProtocolPB;
import io.fffs.common.ipc.RemoteErrors;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockRetentionProto;
import io.fffs.common.proto.DatanodeProtocolProtos.GetBlockRetentionRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.GetBlockRetentionResponseProto;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.history.RetentionTable;
import java.io.IOException;
import java.util.Collections;
import java.util.TreeMap;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;

/**
 * Fetches the NameNode's retention table (docs/history.md) when it has one newer than the store applied, a page at a
 * time, and hands it to the store; otherwise lets the store drop what it held back before. Called from the
 * NameNode link's thread.
 */
final class RetentionPuller {
  private static final int PAGE = 10_000;

  private final DatanodeProtocolPB proxy;
  private final String datanodeUuid;
  private final BlockStore store;
  private final HybridLogicalClock clock;

  RetentionPuller(DatanodeProtocolPB proxy, String datanodeUuid, BlockStore store, HybridLogicalClock clock) {
    this.proxy = proxy;
    this.datanodeUuid = datanodeUuid;
    this.store = store;
    this.clock = clock;
  }

  /** Applies a newer table if there is one; returns its generation, or 0 when there was nothing new. */
  long pull() throws IOException {
    long generation = page(0, 0).getGeneration();
    if (generation <= store.retentionGeneration()) {
      store.collectHistory();
      return 0;
    }
    while (true) {
      TreeMap<Long, MomentSet> blocks = new TreeMap<>();
      long startAfter = 0;
      GetBlockRetentionResponseProto page;
      do {
        page = page(startAfter, PAGE);
        if (page.getGeneration() != generation) {
          break;  // a newer pass while paging: start over with it
        }
        for (BlockRetentionProto block : page.getBlocksList()) {
          blocks.put(block.getBlockId(), MomentSet.fromProto(block.getMoments()));
          startAfter = block.getBlockId();
        }
      } while (page.getMore());
      if (page.getGeneration() == generation) {
        store.applyRetention(new RetentionTable(generation, page.getNextBlockId(),
            Collections.unmodifiableNavigableMap(blocks)));
        return generation;
      }
      generation = page.getGeneration();
    }
  }

  private GetBlockRetentionResponseProto page(long startAfter, int limit) throws IOException {
    try {
      return proxy.getBlockRetention(null, GetBlockRetentionRequestProto.newBuilder()
          .setHlc(clock.now().toProto()).setDatanodeUuid(datanodeUuid).setStartAfter(startAfter).setLimit(limit)
          .build());
    } catch (ServiceException e) {
      throw RemoteErrors.unwrap(e);
    }
  }
}
