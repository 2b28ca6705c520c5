package io.fffs.minicluster.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.NodeProcess;
import io.fffs.namenode.NameNodeConfigKeys;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;

/**
 * A write whose block pipeline holds a DataNode of its own process (the victim) at a chosen place, for tests that
 * fail that DataNode mid-write: 1 KiB records with an hsync after every tenth, and the moment after each hsync kept,
 * so that every replica can be checked to read each such moment exactly as the file's first bytes then.
 */
final class FaultedWrite implements AutoCloseable {
  static final int RECORD = 1024;
  /** Records written in all, the first one before the fault's pipeline is chosen. */
  static final int RECORDS = 200;

  /** The file as of a moment just after an hsync: exactly its first {@code length} bytes. */
  record Synced(TimeSpec time, int length) {}

  /** What a test does to the victim, and when. */
  interface Fault {
    /** Called after record {@code record} was written and, every tenth, hsync'd. */
    void after(int record, NodeProcess victim) throws Exception;
  }

  private final FreezeFrameFileSystem fs;
  private final Replicas replicas;
  private final Path arena;
  private final NodeProcess victim;
  private final String victimUuid;
  private final Random random;
  private final ByteArrayOutputStream model = new ByteArrayOutputStream();
  private final List<Synced> synced = new ArrayList<>();
  private org.apache.hadoop.fs.Path file;
  private List<String> pipeline = List.of();
  private FSDataOutputStream out;

  /** {@code conf} for such a test: heartbeats every 200 ms, and replacements only from the writer. */
  static Configuration conf(Configuration conf) {
    conf.set(DataNodeServiceConfigKeys.HEARTBEAT_INTERVAL_KEY, "200ms");
    conf.set(NameNodeConfigKeys.REPLICATION_INTERVAL_KEY, "1h");
    return conf;
  }

  /** Starts the victim beside {@code cluster}'s DataNodes and waits until the NameNode has it. */
  FaultedWrite(MiniFffsCluster cluster, FreezeFrameFileSystem fs, Replicas replicas, Path base, long seed)
      throws IOException {
    this.fs = fs;
    this.replicas = replicas;
    this.random = new Random(seed);
    this.arena = Path.of("/dev/shm", "fffs-faulted-" + ProcessHandle.current().pid() + "-" + seed);
    this.victim = ReReplicationTest.startDataNodeProcess(cluster, base.resolve("dn-process"), arena);
    this.victimUuid = ReReplicationTest.uuidOf(victim);
    cluster.awaitDataNodes(cluster.getNumDataNodes() + 1);
  }

  String victimUuid() {
    return victimUuid;
  }

  /** The first block's pipeline when the fault came: DataNode uuids, the primary first. */
  List<String> pipeline() {
    return pipeline;
  }

  /**
   * Writes a first record to new files under {@code dir} until one's pipeline (uuids, primary first) is
   * {@code wanted}, then the other records, with {@code fault} after each; closes the file and checks it reads back
   * whole. Returns the bytes written.
   */
  byte[] write(String dir, Predicate<List<String>> wanted, Fault fault) throws Exception {
    out = null;
    for (int attempt = 0; !wanted.test(pipeline); attempt++) {
      assertThat(attempt).as("a pipeline with the process DataNode where the test wants it").isLessThan(40);
      if (out != null) {
        out.close();
      }
      file = new org.apache.hadoop.fs.Path(dir, "f" + attempt);
      out = fs.create(file, true);
      model.reset();
      writeRecord(out);
      out.hsync();
      pipeline = replicas.awaitListed(file.toString(), 3).getBlocks(0).getLocationsList().stream()
          .map(DatanodeIdProto::getDatanodeUuid).toList();
    }
    synced.add(new Synced(TimeSpec.system(ReplicatedHistoryTest.settle(fs)), model.size()));
    for (int record = 1; record < RECORDS; record++) {
      writeRecord(out);
      if (record % 10 == 9) {
        out.hsync();
        synced.add(new Synced(TimeSpec.system(ReplicatedHistoryTest.settle(fs)), model.size()));
      }
      fault.after(record, victim);
    }
    out.close();
    byte[] expected = model.toByteArray();
    try (FSDataInputStream in = fs.open(file)) {
      assertThat(in.readAllBytes()).as("every byte written, hsync'd ones included").isEqualTo(expected);
    }
    return expected;
  }

  /**
   * The file's block as listed once it has three replicas, none of them the victim, each holding the same log and
   * reading every hsync'd moment alike.
   */
  LocatedBlockProto assertReplicasAlike(byte[] expected) throws Exception {
    LocatedBlockProto block = replicas.awaitListed(file.toString(), 3).getBlocks(0);
    assertThat(block.getLocationsList()).extracting(DatanodeIdProto::getDatanodeUuid).doesNotContain(victimUuid);
    assertThat(replicas.assertSameLogs(block)).isGreaterThan(20);
    for (Synced moment : synced) {
      LocatedBlockProto then = replicas.blocks(file.toString(), moment.time()).getBlocks(0);
      for (DatanodeIdProto replica : block.getLocationsList()) {
        assertThat(replicas.info(then, replica, moment.time()).length()).isEqualTo(moment.length());
        Replicas.Answer answer = replicas.read(then, replica, 0, moment.length(), moment.time());
        assertThat(answer.bytes()).as("the file as of %s from %s", moment.time(), replica.getDatanodeUuid())
            .isEqualTo(Arrays.copyOf(expected, moment.length()));
      }
    }
    return block;
  }

  /** The stream {@link #write} writes (left open should a write fail). */
  FSDataOutputStream stream() {
    return out;
  }

  private void writeRecord(FSDataOutputStream out) throws IOException {
    byte[] record = new byte[RECORD];
    random.nextBytes(record);
    out.write(record);
    model.write(record);
  }

  /** Kills the victim (stopped or not) and removes its arena. */
  @Override
  public void close() throws Exception {
    try {
      victim.kill();
    } finally {
      ReReplicationTest.deleteRecursively(arena);
    }
  }
}
