package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.store.MultiLogBlockStore;
import io.fffs.minicluster.MiniFffsCluster;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A block whose history garbage collection trimmed is re-replicated when a DataNode holding it is lost: the copy
 * answers the kept moments (a pin and the present) byte for byte as the surviving replicas do, and refuses the
 * collected ones (HISTORY_EXPIRED) as they do.
 */
class TrimmedHistoryReReplicationTest {
  private static final int LENGTH = 120_000;
  private static final int HOT = 12_000;
  private static final int PINNED = 12;

  @TempDir
  Path base;

  @Test
  void aTrimmedBlockGetsItsReplicasBackWithTheMomentsItKeeps() throws Exception {
    Configuration conf = ReReplicationTest.conf(3);
    conf.setLong("fffs.history.gc.interval", 0);
    conf.set("fffs.datanode.retention.interval", "1h");
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf, 4);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      String path = "/gc/data";
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(path);
      Random random = new Random(1128);
      byte[] model = new byte[LENGTH];
      random.nextBytes(model);
      try (FSDataOutputStream out = fs.create(file, true)) {
        out.write(model);
      }
      List<Long> moments = new ArrayList<>();
      List<byte[]> states = new ArrayList<>();
      try (FffsDataOutputStream out = fs.openForWrite(file)) {
        for (int round = 0; round < 30; round++) {
          // Mostly over the same first pages, so that later writes hide earlier ones; now and then at the end.
          int offset = round % 8 == 7 ? model.length - random.nextInt(100) : random.nextInt(HOT);
          byte[] bytes = new byte[1 + random.nextInt(HOT / 2)];
          random.nextBytes(bytes);
          out.seek(offset);
          out.write(bytes);
          out.hflush();
          if (offset + bytes.length > model.length) {
            model = Arrays.copyOf(model, offset + bytes.length);
          }
          System.arraycopy(bytes, 0, model, offset, bytes.length);
          moments.add(ReplicatedHistoryTest.settle(fs));
          states.add(model.clone());
        }
      }
      long pinned = moments.get(PINNED);
      fs.pin(new org.apache.hadoop.fs.Path("/gc"), TimeSpec.system(pinned), "kept");
      fs.setRetention(new org.apache.hadoop.fs.Path("/gc"), RetentionRule.parse("0s"));
      ReplicatedHistoryTest.settle(fs);
      LocatedBlockProto block = replicas.awaitListed(path, 3).getBlocks(0);
      fs.collectHistory();
      for (int i = 0; i < cluster.getNumDataNodes(); i++) {
        cluster.getDataNode(i).pullRetention();
      }
      // A trim waits until the entries are on disk.
      long blockId = block.getBlock().getBlockId();
      int written = 32;  // the CREATE, the first write and 30 more
      ReReplicationTest.awaitTrue(() -> {
        for (DatanodeIdProto holder : block.getLocationsList()) {
          MultiLogBlockStore store = (MultiLogBlockStore) replicas.store(holder.getDatanodeUuid());
          store.collectHistory();
          if (store.logEntries(blockId).size() > written - 10) {
            return false;
          }
        }
        return true;
      }, "every replica drops the entries no kept moment reads");

      Set<String> holders = block.getLocationsList().stream().map(DatanodeIdProto::getDatanodeUuid)
          .collect(Collectors.toSet());
      String lost = block.getLocations(0).getDatanodeUuid();
      cluster.stopDataNode(Replicas.index(cluster, lost));
      LocatedBlockProto[] healed = new LocatedBlockProto[1];
      ReReplicationTest.awaitTrue(() -> {
        healed[0] = replicas.blocks(path, TimeSpec.latest()).getBlocks(0);
        return healed[0].getLocationsCount() == 3
            && healed[0].getLocationsList().stream().noneMatch(l -> l.getDatanodeUuid().equals(lost));
      }, "3 replicas of the trimmed block again, none on the lost DataNode");

      List<DatanodeIdProto> copies = healed[0].getLocationsList().stream()
          .filter(l -> !holders.contains(l.getDatanodeUuid())).toList();
      assertThat(copies).as("the new replica").hasSize(1);
      for (DatanodeIdProto replica : healed[0].getLocationsList()) {
        check(replicas, healed[0], replica, replica.getDatanodeUuid() + (copies.contains(replica) ? " (the copy)"
            : ""), moments, states, model);
      }
      try (FSDataInputStream in = fs.open(file, TimeSpec.system(pinned))) {
        assertThat(in.readAllBytes()).isEqualTo(states.get(PINNED));
      }

      // The copy keeps refusing the collected moments after its DataNode restarts.
      cluster.restartDataNode(Replicas.index(cluster, copies.get(0).getDatanodeUuid()));
      ReReplicationTest.awaitTrue(() -> replicas.blocks(path, TimeSpec.latest()).getBlocks(0).getLocationsList()
          .stream().anyMatch(l -> l.getDatanodeUuid().equals(copies.get(0).getDatanodeUuid())),
          "the copy's DataNode reports the block again");
      LocatedBlockProto after = replicas.blocks(path, TimeSpec.latest()).getBlocks(0);
      DatanodeIdProto copy = after.getLocationsList().stream()
          .filter(l -> l.getDatanodeUuid().equals(copies.get(0).getDatanodeUuid())).findFirst().orElseThrow();
      check(replicas, after, copy, "the copy after a restart", moments, states, model);
    }
  }

  /** The pinned moment and the present read as written from {@code replica}, every collected moment is refused. */
  private static void check(Replicas replicas, LocatedBlockProto block, DatanodeIdProto replica, String who,
      List<Long> moments, List<byte[]> states, byte[] model) throws Exception {
    byte[] atPin = states.get(PINNED);
    assertThat(replicas.read(block, replica, 0, atPin.length, TimeSpec.system(moments.get(PINNED))).bytes())
        .as("the pinned moment on %s", who).isEqualTo(atPin);
    assertThat(replicas.read(block, replica, 0, model.length, TimeSpec.latest()).bytes())
        .as("the present on %s", who).isEqualTo(model);
    for (int round = 0; round < moments.size() - 1; round++) {
      if (round != PINNED) {
        TimeSpec past = TimeSpec.system(moments.get(round));
        assertThatThrownBy(() -> replicas.read(block, replica, 0, 100, past))
            .as("collected moment %s on %s", past, who).hasMessageContaining("HISTORY_EXPIRED");
      }
    }
  }
}
