package io.fffs.bench.e2e;

import io.fffs.bench.child.ChildJvm;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.FsckReport;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeAdminStateProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckFileProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckReplicaStateProto;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.CategoryChart;

/**
 * What replication costs and how fast it repairs, FFFS beside HDFS in the same run, on one machine:
 * <ol>
 *   <li>write and read at replication 1 and 3 (full: also 2) on 3 DataNodes — FFFS above one replica by each of
 *       its write pipelines, chain and fan-out: for each system and replication a
 *       cluster in a JVM of its own ({@link FreshServerMain}); a fresh client JVM ({@link FreshClientMain}) writes
 *       the file in 1 MiB calls (timed, until {@code close} returns), a second fresh client reads it to the end;
 *       between the two, FFFS's memory per replica byte: what its DataNodes' stores hold (arena pages, block logs,
 *       page indexes) over the file's size times the replication, a figure that should not grow with it;</li>
 *   <li>repair (FFFS): 4 DataNodes, replication 3; the file is written, DataNode 0 is stopped, and the time until
 *       every block has 3 current replicas again is taken, with a dead interval of 1 s, scans every 250 ms and copies
 *       unthrottled. The rate is the bytes of the blocks the stopped DataNode held over that time less the dead
 *       interval.</li>
 * </ol>
 * Sizes: quick 128 MiB; full 512 MiB. Rates are GB/s (10^9 bytes per second).
 */
final class ReplicationBenchmark implements EndToEndBenchmark.Run {
  private static final int IO = 1 << 20;
  private static final int DATANODES = 3;
  private static final double DEAD_SECONDS = 1.0;
  private static final String FFFS = "FFFS";
  /** FFFS at more than one replica, by each write pipeline ({@code fffs.client.write.pipeline}). */
  private static final String CHAIN = "FFFS chain";
  private static final String FAN_OUT = "FFFS fan-out";

  /** One measured figure. */
  record Row(String system, int replication, String kind, double value, String unit) {}

  private final List<Row> rows = new ArrayList<>();

  @Override
  public String run(BenchArgs args, Path tmp) throws Exception {
    long size = args.quick() ? 128L << 20 : 512L << 20;
    int[] replications = args.quick() ? new int[] {1, 3} : new int[] {1, 2, 3};
    for (int replication : replications) {
      for (String system : systems(replication)) {
        Path dir = tmp.resolve(system.replace(' ', '-') + "-r" + replication);
        writeAndRead(system, replication, dir, size);
        Clusters.deleteRecursively(dir);
      }
    }
    Path dir = tmp.resolve("fffs-repair");
    repair(dir, size);
    Clusters.deleteRecursively(dir);

    Report report = new Report("system", "replication", "case", "value", "unit");
    for (Row row : rows) {
      report.row(row.system(), row.replication(), row.kind(), row.value(), row.unit());
      System.out.printf(Locale.ROOT, "%-12s r=%d  %-12s %8.3f %s%n", row.system(), row.replication(), row.kind(),
          row.value(), row.unit());
    }
    report.writeCsv(args.csv());
    Charts.save(args.png(), List.of(chart(size, replications)));
    return summarize(size);
  }

  /** The contenders at a replication: FFFS's two write pipelines where there is more than one replica. */
  private static List<String> systems(int replication) {
    return replication == 1 ? List.of(FFFS, "HDFS") : List.of(CHAIN, FAN_OUT, "HDFS");
  }

  private void writeAndRead(String system, int replication, Path dir, long size) throws IOException {
    Progress.say("%s, %d DataNodes, replication %d, %d MiB: starting the cluster", system, DATANODES, replication,
        size >> 20);
    long arena = size + size / 4 + (64L << 20);
    String path = "/replication/file";
    String server = system.startsWith(FFFS) ? FFFS : system;
    try (ChildJvm cluster = ChildJvm.start(server + " cluster", "3g", FreshServerMain.class, server, dir.toString(),
        String.valueOf(arena), String.valueOf(DATANODES), String.valueOf(replication))) {
      String uri = cluster.ask("uri")[0];
      try (ChildJvm client = client(system, uri, replication)) {
        add(system, replication, "write", client.ask("write " + path + " " + size + " " + IO));
      }
      cluster.ask("quiet");
      if (!system.equals("HDFS")) {
        // What each replica costs in memory: the stores' bytes over the bytes of all replicas written.
        long held = Long.parseLong(cluster.ask("memory")[0]);
        rows.add(new Row(system, replication, "memory", (double) held / ((double) size * replication),
            "bytes per replica byte"));
      }
      try (ChildJvm client = client(system, uri, replication)) {
        add(system, replication, "read", client.ask("read " + path + " " + size + " " + IO));
      }
    }
  }

  private void repair(Path dir, long size) throws IOException {
    Progress.say("FFFS repair: 4 DataNodes, replication 3, %d MiB; stopping one DataNode", size >> 20);
    long arena = size + size / 4 + (64L << 20);
    String path = "/replication/repaired";
    try (ChildJvm server = ChildJvm.start("FFFS cluster", "3g", FreshServerMain.class, "FFFS", dir.toString(),
        String.valueOf(arena), "4", "3", "fffs.datanode.heartbeat.interval=200ms",
        "fffs.namenode.datanode.dead-interval=1s", "fffs.namenode.replication.dead-interval=1s",
        "fffs.namenode.replication.interval=250ms", "fffs.datanode.replication.bandwidth=0")) {
      String uri = server.ask("uri")[0];
      try (ChildJvm client = client("FFFS", uri, 3)) {
        client.ask("write " + path + " " + size + " " + IO);
      }
      server.ask("quiet");
      String[] answer = server.ask("repair " + path);
      double seconds = Double.parseDouble(answer[0]);
      long bytes = Long.parseLong(answer[1]);
      rows.add(new Row("FFFS", 3, "repair", seconds, "s"));
      rows.add(new Row("FFFS", 3, "repair rate", bytes / ((seconds - DEAD_SECONDS) * 1e9), "GB/s"));
      rows.add(new Row("FFFS", 3, "repair bytes", bytes / 1e6, "MB"));
    }
  }

  /**
   * In the cluster's JVM: stops DataNode 0 and waits until every block of {@code path} has its replication in
   * current replicas elsewhere; answers the seconds that took and the bytes of the blocks DataNode 0 held.
   */
  static String repair(MiniFffsCluster cluster, String path) throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(path);
    try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      String victim = cluster.getDataNode(0).uuid();
      long bytes = 0;
      for (FsckFileProto f : fs.fsck(file).files()) {
        for (FsckBlockProto block : f.getBlocksList()) {
          if (block.getReplicasList().stream().anyMatch(r -> r.getDatanode().getDatanodeUuid().equals(victim))) {
            bytes += block.getNumBytes();
          }
        }
      }
      long start = System.nanoTime();
      cluster.stopDataNode(0);
      while (!restored(fs.fsck(file), victim)) {
        if (System.nanoTime() - start > 600_000_000_000L) {
          throw new IOException("replication of " + path + " not restored within 10 minutes");
        }
        Clusters.sleep(10);
      }
      return String.format(Locale.ROOT, "%.3f %d", (System.nanoTime() - start) / 1e9, bytes);
    }
  }

  private static boolean restored(FsckReport report, String lost) {
    for (FsckFileProto file : report.files()) {
      for (FsckBlockProto block : file.getBlocksList()) {
        long current = block.getReplicasList().stream().filter(r -> r.getState() == FsckReplicaStateProto.FSCK_CURRENT
            && r.getAdminState() == DatanodeAdminStateProto.DN_NORMAL
            && !r.getDatanode().getDatanodeUuid().equals(lost)).count();
        if (current < file.getReplication()) {
          return false;
        }
      }
    }
    return true;
  }

  private static ChildJvm client(String system, String uri, int replication) throws IOException {
    String pipeline = DataTransferConfigKeys.WRITE_PIPELINE_KEY + "=" + (system.equals(FAN_OUT) ? "fan-out" : "chain");
    return ChildJvm.start(system + " client", "1g", FreshClientMain.class, uri, "fffs.replication=" + replication,
        "dfs.replication=" + replication, pipeline);
  }

  private void add(String system, int replication, String kind, String[] answer) {
    rows.add(new Row(system, replication, kind, Double.parseDouble(answer[0]), "GB/s"));
  }

  private double find(String system, int replication, String kind) {
    return rows.stream().filter(r -> r.system().equals(system) && r.replication() == replication
        && r.kind().equals(kind)).mapToDouble(Row::value).findFirst().orElse(Double.NaN);
  }

  /** Bars per case (write, read at each replication), a series per system. */
  private CategoryChart chart(long size, int[] replications) {
    CategoryChart chart = Charts.bars(String.format(Locale.ROOT, "Replication, %d MiB file, %d DataNodes, fresh "
        + "clients", size >> 20, DATANODES), "case (1 MiB calls)", "GB/s");
    List<String> cases = new ArrayList<>();
    for (String kind : List.of("write", "read")) {
      for (int r : replications) {
        cases.add(kind + " r=" + r);
      }
    }
    for (String system : List.of(CHAIN, FAN_OUT, "HDFS")) {
      List<Double> values = new ArrayList<>();
      for (String c : cases) {
        int r = Integer.parseInt(c.substring(c.length() - 1));
        // FFFS at replication 1 has no pipeline: its one figure stands in both FFFS series.
        double v = find(system.startsWith(FFFS) && r == 1 ? FFFS : system, r, c.substring(0, c.indexOf(' ')));
        values.add(Double.isNaN(v) ? 0.0 : v);
      }
      chart.addSeries(system, cases, values);
    }
    return chart;
  }

  private String summarize(long size) {
    return String.format(Locale.ROOT, "%d MiB, %d DataNodes, GB/s: write FFFS r1 %.3f, r3 chain %.3f fan-out %.3f;"
        + " HDFS r1 %.3f r3 %.3f; FFFS/HDFS at r3 write chain %.2f fan-out %.2f, read chain %.2f fan-out %.2f;"
        + " repair after a DataNode loss %.1f s for %.0f MB (%.3f GB/s after the 1 s dead interval); memory per"
        + " replica byte r1 %.4f, r3 chain %.4f fan-out %.4f (r3 chain / r1 %.3f)", size >> 20,
        DATANODES, find(FFFS, 1, "write"), find(CHAIN, 3, "write"), find(FAN_OUT, 3, "write"),
        find("HDFS", 1, "write"), find("HDFS", 3, "write"), find(CHAIN, 3, "write") / find("HDFS", 3, "write"),
        find(FAN_OUT, 3, "write") / find("HDFS", 3, "write"), find(CHAIN, 3, "read") / find("HDFS", 3, "read"),
        find(FAN_OUT, 3, "read") / find("HDFS", 3, "read"), find(FFFS, 3, "repair"), find(FFFS, 3, "repair bytes"),
        find(FFFS, 3, "repair rate"), find(FFFS, 1, "memory"), find(CHAIN, 3, "memory"), find(FAN_OUT, 3, "memory"),
        find(CHAIN, 3, "memory") / find(FFFS, 1, "memory"));
  }
}
