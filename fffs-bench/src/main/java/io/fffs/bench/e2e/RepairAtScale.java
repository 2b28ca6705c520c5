package io.fffs.bench.e2e;

import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.fs.Namesystem;
import io.fffs.namenode.permission.Caller;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * How long a lost DataNode's blocks take to come back when the namespace is large: an in-process cluster of four
 * DataNodes whose NameNode first gets NAMES empty directories (its replication scan reads them all, so it is paced
 * to rest nine times its duration), then FILES files of one 1 MiB block each at replication 3; DataNode 0 is stopped
 * and the time until every block has 3 current replicas again is printed, with the blocks it held. Dead intervals
 * 1 s, as in {@code bench replication}; the settings given (KEY=VALUE) go to the cluster, e.g.
 * {@code fffs.namenode.replication.interval=3s}. {@code java -cp "$(bin/fffs classpath)"
 * io.fffs.bench.e2e.RepairAtScale [NAMES] [FILES] [KEY=VALUE...]} (1000000, 200; interval 250 ms).
 */
public final class RepairAtScale {
  private static final int BLOCK = 1 << 20;

  private RepairAtScale() {}

  public static void main(String[] args) throws Exception {
    int names = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    int files = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    Configuration conf = new Configuration();
    conf.set("fffs.datanode.heartbeat.interval", "200ms");
    conf.set("fffs.namenode.datanode.dead-interval", "1s");
    conf.set("fffs.namenode.replication.dead-interval", "1s");
    conf.set("fffs.namenode.replication.interval", "250ms");
    conf.set("fffs.datanode.replication.bandwidth", "0");
    conf.setLong("dfs.blocksize", BLOCK);
    conf.setInt("fffs.replication", 3);
    for (int i = 2; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      conf.set(kv[0], kv[1]);
    }
    Path base = Files.createTempDirectory(Paths.get("/tmp"), "repair-at-scale");
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().numDataNodes(4).conf(conf).baseDir(base)
        .memoryCapacity(256L << 20).build()) {
      cluster.waitActive();
      long start = System.nanoTime();
      fill(cluster.getNameNode().namesystem(), names);
      Progress.say("%d directories in %.1f s", names, (System.nanoTime() - start) / 1e9);
      byte[] data = new byte[BLOCK];
      try (FileSystem fs = cluster.getFileSystem()) {
        for (int i = 0; i < files; i++) {
          try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path("/data/f" + i), true, BLOCK,
              (short) 3, BLOCK)) {
            data[0] = (byte) i;
            out.write(data);
          }
        }
      }
      Thread.sleep(5_000);  // the pipelines' reports in, so that only the loss is repaired
      String[] answer = ReplicationBenchmark.repair(cluster, "/data").split(" ");
      System.out.printf(Locale.ROOT, "names %d, files %d: %s s to restore 3 replicas of %d MB%n", names, files,
          answer[0], Long.parseLong(answer[1]) >> 20);
    } finally {
      Clusters.deleteRecursively(base);
    }
  }

  /** NAMES empty directories, a thousand per parent, made by 8 threads through the namesystem itself. */
  private static void fill(Namesystem fs, int names) throws Exception {
    Caller superuser = new Caller(UserGroupInformation.getCurrentUser().getShortUserName(), List.of("supergroup"));
    AtomicLong next = new AtomicLong();
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<Void>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        done.add(threads.submit(() -> {
          for (long i = next.getAndIncrement(); i < names; i = next.getAndIncrement()) {
            fs.directories.mkdirs(superuser, "/names/d" + i / 1000 + "/e" + i, 0755, true).await();
          }
          return null;
        }));
      }
      for (Future<Void> thread : done) {
        thread.get();
      }
    } finally {
      threads.shutdownNow();
    }
  }
}
