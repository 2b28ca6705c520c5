package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.NodeProcess;
import io.fffs.namenode.NameNodeConfigKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Re-replication of the whole history: when a DataNode is lost, or a file's replication is raised, the NameNode has
 * a DataNode holding a current replica stream the block's log to another DataNode, entry by entry at the same
 * stamps, so that past reads answer there exactly as they did before; replicas beyond the replication are dropped.
 */
class ReReplicationTest {
  private static final int BLOCK = 256 * 1024;
  static final String FILE = "/rereplicated/history.bin";

  @TempDir
  Path base;

  static Configuration conf(int replication) {
    Configuration conf = ReplicatedHistoryTest.conf(replication);
    conf.set(DataNodeServiceConfigKeys.HEARTBEAT_INTERVAL_KEY, "200ms");
    conf.set(NameNodeConfigKeys.DATANODE_DEAD_INTERVAL_KEY, "1s");
    // Long enough that a DataNode process starved of CPU on a loaded machine is not given up for lost.
    conf.set(NameNodeConfigKeys.REPLICATION_DEAD_INTERVAL_KEY, "6s");
    // Two scans a second apart before a block is acted on: the reports of a just-closed file are in by then.
    conf.set(NameNodeConfigKeys.REPLICATION_INTERVAL_KEY, "1s");
    return conf;
  }

  /** One past read, as every replica answered it before the loss. */
  record PastRead(TimeSpec time, int block, long offset, int length, Replicas.Answer answer) {}

  @Test
  void aKilledDataNodesBlocksGetTheirReplicasBackWithTheWholeHistory() throws Exception {
    Path arena = Path.of("/dev/shm", "fffs-rerepl-" + ProcessHandle.current().pid());
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf(3), 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      NodeProcess victim = startDataNodeProcess(cluster, base.resolve("dn-process"), arena);
      try {
        String victimUuid = uuidOf(victim);
        cluster.awaitDataNodes(4);
        Random random = new Random(32);
        long[] window = writeHistory(fs, random);
        LocatedBlocksProto blocks = replicas.awaitListed(FILE, 3);
        assertThat(blocks.getBlocksList()).as("the process DataNode holds some blocks")
            .anyMatch(holds(victimUuid));

        List<PastRead> reads = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
          reads.add(readEverywhere(replicas, window, random));
        }

        victim.kill();
        LocatedBlocksProto healed = awaitHealed(replicas, victimUuid);
        for (LocatedBlockProto block : healed.getBlocksList()) {
          assertThat(replicas.assertSameLogs(block)).isGreaterThan(1);
        }
        for (PastRead read : reads) {
          LocatedBlockProto block = replicas.blocks(FILE, read.time()).getBlocks(read.block());
          for (DatanodeIdProto replica : healed.getBlocks(read.block()).getLocationsList()) {
            Replicas.Answer answer = replicas.read(block, replica, read.offset(), read.length(), read.time());
            assertThat(answer.bytes()).as("block %d [%d, +%d) at %s from %s after the loss", read.block(),
                read.offset(), read.length(), read.time(), replica.getDatanodeUuid())
                .isEqualTo(read.answer().bytes());
            assertThat(answer.resolvedHlc()).isEqualTo(read.answer().resolvedHlc());
          }
        }
        assertThat(cluster.getNameNode().namesystem().replication.counts().copiesScheduled()).isPositive();
      } finally {
        victim.close();
        deleteRecursively(arena);
      }
    }
  }

  @Test
  void raisingTheReplicationCopiesTheHistoryAndLoweringItDropsReplicas() throws Exception {
    try (MiniFffsCluster cluster = ReplicatedHistoryTest.cluster(base, conf(1), 3);
        FreezeFrameFileSystem fs = cluster.getFileSystem();
        Replicas replicas = new Replicas(cluster)) {
      Random random = new Random(29);
      long[] window = writeHistory(fs, random);
      replicas.awaitListed(FILE, 1);
      List<PastRead> reads = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        reads.add(readEverywhere(replicas, window, random));
      }

      fs.setReplication(new org.apache.hadoop.fs.Path(FILE), (short) 3);
      LocatedBlocksProto three = replicas.awaitListed(FILE, 3);
      // The one holder sent two copies of each block; its page says so (once each copy's end is answered).
      awaitTrue(() -> copiesSent(cluster) >= 2L * three.getBlocksCount(), "the copies on the DataNodes' pages");
      for (LocatedBlockProto block : three.getBlocksList()) {
        replicas.assertSameLogs(block);
      }
      for (PastRead read : reads) {
        LocatedBlockProto block = replicas.blocks(FILE, read.time()).getBlocks(read.block());
        for (DatanodeIdProto replica : three.getBlocks(read.block()).getLocationsList()) {
          Replicas.Answer answer = replicas.read(block, replica, read.offset(), read.length(), read.time());
          assertThat(answer.bytes()).isEqualTo(read.answer().bytes());
          assertThat(answer.resolvedHlc()).isEqualTo(read.answer().resolvedHlc());
        }
      }

      fs.setReplication(new org.apache.hadoop.fs.Path(FILE), (short) 2);
      LocatedBlocksProto two = replicas.awaitListed(FILE, 2);
      for (int b = 0; b < two.getBlocksCount(); b++) {
        long blockId = two.getBlocks(b).getBlock().getBlockId();
        List<String> kept = two.getBlocks(b).getLocationsList().stream().map(DatanodeIdProto::getDatanodeUuid)
            .toList();
        String dropped = three.getBlocks(b).getLocationsList().stream().map(DatanodeIdProto::getDatanodeUuid)
            .filter(uuid -> !kept.contains(uuid)).findFirst().orElseThrow();
        awaitTrue(() -> replicas.store(dropped).logEntries(blockId).isEmpty(),
            "block " + blockId + " dropped on " + dropped);
      }
    }
  }

  /** A DataNode of {@code cluster} in a JVM of its own (killable with SIGKILL), its arena in {@code arena}. */
  static NodeProcess startDataNodeProcess(MiniFffsCluster cluster, Path home, Path arena) throws IOException {
    Files.createDirectories(home);
    return NodeProcess.start("io.fffs.datanode.DataNodeMain", "-Xmx256m", home.resolve("log"),
        DataNodeServiceConfigKeys.NAMENODE_ADDRESS_KEY + "="
            + cluster.getConfiguration().get(NameNodeConfigKeys.RPC_ADDRESS_KEY),
        DataNodeServiceConfigKeys.DATA_ADDRESS_KEY + "=127.0.0.1:0",
        DataNodeServiceConfigKeys.HEARTBEAT_INTERVAL_KEY + "=200ms",
        DataNodeConfigKeys.DATA_DIR_KEY + "=" + home.resolve("data"),
        DataNodeConfigKeys.MEMORY_DIR_KEY + "=" + arena,
        DataNodeConfigKeys.MEMORY_CAPACITY_KEY + "=" + (64 << 20));
  }

  /** The uuid a DataNode process printed. */
  static String uuidOf(NodeProcess dataNode) {
    return dataNode.output().stream().filter(line -> line.startsWith("id=")).findFirst().orElseThrow()
        .substring(3);
  }

  /** {@link ReplicatedHistoryTest#writeHistory} of several blocks; returns the time window the history spans. */
  static long[] writeHistory(FreezeFrameFileSystem fs, Random random) throws IOException {
    long[] window = ReplicatedHistoryTest.writeHistory(fs, FILE, random, 24, 100 * 1024);
    assertThat(fs.getFileStatus(new org.apache.hadoop.fs.Path(FILE)).getLen()).as("several blocks")
        .isGreaterThan(2 * BLOCK);
    return window;
  }

  /**
   * A random range of a random block that exists as of a random time in {@code window}, read from every replica:
   * all answer the same.
   */
  static PastRead readEverywhere(Replicas replicas, long[] window, Random random) throws IOException {
    while (true) {
      TimeSpec time = TimeSpec.system(window[0] + (long) (random.nextDouble() * (window[1] - window[0])));
      LocatedBlocksProto blocks = replicas.blocks(FILE, time);
      if (blocks.getBlocksCount() == 0) {
        continue;  // before the first write
      }
      int b = random.nextInt(blocks.getBlocksCount());
      LocatedBlockProto block = blocks.getBlocks(b);
      io.fffs.client.data.BlockInfo info = replicas.info(block, block.getLocations(0), time);
      if (info.exists() && info.length() > 0) {
        return readEverywhere(replicas, time, b, block, info.length(), random);
      }
    }
  }

  private static PastRead readEverywhere(Replicas replicas, TimeSpec time, int b, LocatedBlockProto block,
      long blockLength, Random random) throws IOException {
    int length = (int) Math.min(blockLength, 1 + random.nextInt(64 * 1024));
    long offset = random.nextInt((int) (blockLength - length + 1));
    Replicas.Answer first = null;
    for (DatanodeIdProto replica : block.getLocationsList()) {
      Replicas.Answer answer = replicas.read(block, replica, offset, length, time);
      if (first == null) {
        first = answer;
      } else {
        assertThat(answer.bytes()).as("every replica answers alike").isEqualTo(first.bytes());
        assertThat(answer.resolvedHlc()).isEqualTo(first.resolvedHlc());
      }
    }
    assertThat(first.bytes()).hasSize(length);
    return new PastRead(time, b, offset, length, first);
  }

  /** Waits until every block lists 3 replicas, none on {@code lost}. */
  private static LocatedBlocksProto awaitHealed(Replicas replicas, String lost) throws Exception {
    LocatedBlocksProto[] last = new LocatedBlocksProto[1];
    awaitTrue(() -> {
      last[0] = replicas.blocks(FILE, TimeSpec.latest());
      return last[0].getBlocksList().stream()
          .allMatch(block -> block.getLocationsCount() == 3 && !holds(lost).test(block));
    }, "3 replicas of every block again, none on the lost DataNode");
    return last[0];
  }

  private static Predicate<LocatedBlockProto> holds(String uuid) {
    return block -> block.getLocationsList().stream().anyMatch(l -> l.getDatanodeUuid().equals(uuid));
  }

  /** The copies for re-replication the DataNodes' {@code /status} pages count, summed. */
  private static long copiesSent(MiniFffsCluster cluster) throws IOException {
    long sent = 0;
    for (int i = 0; i < cluster.getNumDataNodes(); i++) {
      DatanodeIdProto id = cluster.getDataNode(i).datanodeId();
      try (java.io.InputStream in = java.net.URI.create("http://" + id.getHost() + ":" + id.getHttpPort()
          + "/status").toURL().openStream()) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"replicaCopiesSent\":(\\d+)")
            .matcher(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        assertThat(m.find()).as("replicaCopiesSent on DataNode %d's page", i).isTrue();
        sent += Long.parseLong(m.group(1));
      }
    }
    return sent;
  }

  interface Check {
    boolean holds() throws Exception;
  }

  static void awaitTrue(Check check, String what) throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!check.holds()) {
      assertThat(System.nanoTime()).as("waiting for: %s", what).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
