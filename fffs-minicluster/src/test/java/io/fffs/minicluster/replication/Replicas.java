package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.client.data.ReadResult;
import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.DataNode;
import io.fffs.datanode.store.BlockInfo;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.ReadView;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a file's blocks straight from each of their replicas, past the client's replica choice, for tests that
 * compare replicas: the NameNode's locations and tokens, direct READs as of a time, and the DataNodes' logs entry by
 * entry.
 */
final class Replicas implements AutoCloseable {
  /** One replica's answer to a direct read. */
  record Answer(byte[] bytes, HlcTimestamp resolvedHlc) {}

  private final MiniFffsCluster cluster;
  private final NamenodeClient nn;
  private final DataTransferClient data;

  Replicas(MiniFffsCluster cluster) throws IOException {
    this.cluster = cluster;
    HybridLogicalClock clock = new HybridLogicalClock(PhysicalClock.system(), cluster.getConfiguration());
    this.nn = NamenodeClient.connect(cluster.getNameNode().rpcAddress(), cluster.getConfiguration(), clock);
    this.data = DataTransferClients.tcp(cluster.getConfiguration(), clock);
  }

  LocatedBlocksProto blocks(String path, TimeSpec time) throws IOException {
    return nn.getBlockLocations(path, time, 0, Long.MAX_VALUE);
  }

  /**
   * Waits until every block of {@code path} lists {@code replicas} locations and each listed one has reported (a
   * replica placed but not yet reported is listed only while none of its block has reported).
   */
  LocatedBlocksProto awaitListed(String path, int replicas) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (true) {
      LocatedBlocksProto blocks = blocks(path, TimeSpec.latest());
      if (blocks.getBlocksList().stream().allMatch(b -> b.getLocationsCount() == replicas) && allReported(path)) {
        return blocks;
      }
      assertThat(System.nanoTime()).as("every block of %s listed on %d DataNodes: %s", path, replicas, blocks)
          .isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private boolean allReported(String path) throws IOException {
    for (io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckFileProto file : nn.fsck(path, TimeSpec.latest())) {
      for (io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckBlockProto block : file.getBlocksList()) {
        if (block.getReplicasList().stream().anyMatch(r -> r.getState()
            == io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckReplicaStateProto.FSCK_CURRENT
            && r.getLastEntryHlc() == 0)) {
          return false;
        }
      }
    }
    return true;
  }

  /** [offset, offset + length) of {@code block} as of {@code time}, read directly from {@code datanode}. */
  Answer read(LocatedBlockProto block, DatanodeIdProto datanode, long offset, int length, TimeSpec time)
      throws IOException {
    ByteBuffer dst = ByteBuffer.allocate(length);
    ReadResult result = data.read(datanode, block.getBlock().getBlockId(), BlockToken.fromProto(block.getToken()),
        offset, dst, time);
    return new Answer(Arrays.copyOf(dst.array(), result.bytesRead()), result.resolvedHlc());
  }

  /** The block's state as of {@code time} on {@code datanode} (exists, length, resolved entry). */
  io.fffs.client.data.BlockInfo info(LocatedBlockProto block, DatanodeIdProto datanode, TimeSpec time)
      throws IOException {
    return data.blockInfo(datanode, block.getBlock().getBlockId(), BlockToken.fromProto(block.getToken()), time);
  }

  /** The index in {@code cluster} of the running DataNode with {@code uuid}. */
  static int index(MiniFffsCluster cluster, String uuid) {
    for (int i = 0; i < cluster.getNumDataNodes(); i++) {
      if (cluster.getDataNode(i) != null && cluster.getDataNode(i).uuid().equals(uuid)) {
        return i;
      }
    }
    throw new AssertionError("no running DataNode " + uuid);
  }

  /** The store of the DataNode with {@code uuid}. */
  BlockStore store(String uuid) {
    for (int i = 0; i < cluster.getNumDataNodes(); i++) {
      DataNode dataNode = cluster.getDataNode(i);
      if (dataNode != null && dataNode.uuid().equals(uuid)) {
        return dataNode.store();
      }
    }
    throw new AssertionError("no running DataNode " + uuid);
  }

  /** Asserts the block's log is the same on every listed replica, entry by entry, bytes included; its length. */
  int assertSameLogs(LocatedBlockProto block) throws FffsException {
    long blockId = block.getBlock().getBlockId();
    List<BlockStore> stores = new ArrayList<>();
    for (DatanodeIdProto location : block.getLocationsList()) {
      stores.add(store(location.getDatanodeUuid()));
    }
    int index = 0;
    while (true) {
      BlockInfo first;
      try {
        first = stores.get(0).infoAtLogIndex(blockId, index);
      } catch (FffsException e) {
        for (BlockStore other : stores) {
          int end = index;
          org.assertj.core.api.Assertions.assertThatThrownBy(() -> other.infoAtLogIndex(blockId, end))
              .as("no replica has an entry past the others'").isInstanceOf(FffsException.class);
        }
        return index;
      }
      byte[] bytes = first.exists() && first.length() > 0 ? bytesAt(stores.get(0), blockId, index, first) : null;
      for (BlockStore other : stores.subList(1, stores.size())) {
        BlockInfo info = other.infoAtLogIndex(blockId, index);
        assertThat(info).as("entry %d of block %d", index, blockId).isEqualTo(first);
        byte[] others = bytes == null ? null : bytesAt(other, blockId, index, info);
        if (bytes != null && !Arrays.equals(others, bytes)) {  // AssertJ compares arrays element by element
          assertThat(others).as("bytes of entry %d", index).isEqualTo(bytes);
        }
      }
      index++;
    }
  }

  private static byte[] bytesAt(BlockStore store, long blockId, int index, BlockInfo info) throws FffsException {
    try (ReadView view = store.readAtLogIndex(blockId, index, 0, (int) info.length())) {
      return view.toBytes();
    }
  }

  @Override
  public void close() throws IOException {
    try {
      data.close();
    } finally {
      nn.close();
    }
  }
}
