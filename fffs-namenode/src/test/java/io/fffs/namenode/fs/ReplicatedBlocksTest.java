package io.fffs.namenode.fs;

import static io.fffs.namenode.fs.NamesystemFixture.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.TimeSpec;
import org.junit.jupiter.api.Test;

/** A file's replication at the NameNode: placement on distinct DataNodes, the target shown, the counts. */
class ReplicatedBlocksTest extends NamesystemTestBase {
  private void register(String uuid) {
    nn.fs.datanodes().register(DatanodeIdProto.newBuilder().setDatanodeUuid(uuid).setHost("127.0.0.1")
        .setDataPort(50010).setIpcPort(0).build(), 1L << 30, 0);
  }

  private LocatedBlockProto createWithBlock(String path, int replication) throws Exception {
    FileStatusProto created = nn.fs.files.create(ADMIN, path, 0644, "client-1", true, true, replication, 1 << 20,
        null).await();
    return nn.fs.files.addBlock(ADMIN, path, created.getInodeId(), "client-1", null).await();
  }

  @Test
  void aBlockGoesToDistinctDataNodesThePrimaryFirstAndSurvivesARestart() throws Exception {
    register("dn-2");
    register("dn-3");
    LocatedBlockProto block = createWithBlock("/r3", 3);
    assertThat(block.getLocationsList()).extracting(DatanodeIdProto::getDatanodeUuid)
        .containsExactlyInAnyOrder("dn-1", "dn-2", "dn-3");
    String primary = block.getLocations(0).getDatanodeUuid();
    assertThat(nn.fs.queries.getBlockLocations(ADMIN, "/r3", TimeSpec.latest(), 0, 10).getBlocks(0)
        .getLocations(0).getDatanodeUuid()).as("a block being written lists its primary first").isEqualTo(primary);
    assertThat(nn.fs.queries.replicationSummary()).isEqualTo(new NamespaceQueries.ReplicationSummary(0, 0, 0));

    long blockId = block.getBlock().getBlockId();
    nn.fs.files.complete(ADMIN, "/r3", nn.fs.queries.getFileInfo(ADMIN, "/r3", TimeSpec.latest()).getInodeId(),
        "client-1", BlockProto.newBuilder().setBlockId(blockId).setNumBytes(10).build()).await();
    nn.restart();  // the edit with the followers replays
    register("dn-2");
    register("dn-3");
    assertThat(nn.fs.queries.getFileInfo(ADMIN, "/r3", TimeSpec.latest()).getReplication()).isEqualTo(3);
    assertThat(nn.fs.queries.replicationSummary()).as("locations are soft state: none reported yet")
        .isEqualTo(new NamespaceQueries.ReplicationSummary(0, 1, 0));
    nn.fs.datanodes().blocksReceived("dn-1", new long[] {blockId}, new long[] {10}, new long[] {900});
    nn.fs.datanodes().blocksReceived("dn-2", new long[] {blockId}, new long[] {10}, new long[] {900});
    nn.fs.datanodes().blocksReceived("dn-3", new long[] {blockId}, new long[] {4}, new long[] {800});
    assertThat(nn.fs.queries.getBlockLocations(ADMIN, "/r3", TimeSpec.latest(), 0, 10).getBlocks(0)
        .getLocationsList()).extracting(DatanodeIdProto::getDatanodeUuid).containsExactlyInAnyOrder("dn-1", "dn-2");
    assertThat(nn.fs.queries.replicationSummary()).isEqualTo(new NamespaceQueries.ReplicationSummary(1, 0, 1));
  }

  @Test
  void withOneDataNodeTheFileShowsItsTargetAndIsUnderReplicated() throws Exception {
    LocatedBlockProto block = createWithBlock("/few", 3);
    assertThat(block.getLocationsList()).extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("dn-1");
    assertThat(nn.fs.queries.getFileInfo(ADMIN, "/few", TimeSpec.latest()).getReplication()).isEqualTo(3);
    assertThat(nn.fs.queries.replicationSummary()).isEqualTo(new NamespaceQueries.ReplicationSummary(1, 0, 0));
  }
}
