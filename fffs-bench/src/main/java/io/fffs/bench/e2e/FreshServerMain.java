package io.fffs.bench.e2e;

import io.fffs.bench.BenchLogging;
import io.fffs.bench.child.ChildLoop;
import io.fffs.datanode.store.MemoryUsage;
import io.fffs.datanode.store.StoreStats;
import io.fffs.minicluster.MiniFffsCluster;
import java.nio.file.Paths;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * The cluster of one {@link FreshBenchmark} or {@link ReplicationBenchmark} configuration in a JVM of its own:
 * {@code FreshServerMain FFFS|HDFS DIR ARENA_BYTES [DATANODES REPLICATION [KEY=VALUE...]]} starts an FFFS
 * {@code MiniFffsCluster} (persistence on, the default) or an HDFS {@code MiniDFSCluster} with one DataNode and
 * replication 1 unless given, the settings added to its configuration, and serves
 * ({@link io.fffs.bench.child.ChildLoop}):
 * <pre>
 *   uri          → ok URI                        (the file system clients connect to)
 *   quiet        → ok                            (FFFS: waits until persistence has gone quiet)
 *   unmap        → ok                            (FFFS: the DataNodes unmap the segment files they keep mapped for
 *                                                data-port answers, so dropping them from the page cache works)
 *   stats        → ok PAGES_RELOADED SEGMENT_READS BATCHES FSYNCS SENT_FROM_FILES  (FFFS' DataNode 0; zeros for HDFS)
 *   memory       → ok BYTES                       (FFFS: the memory the DataNodes' stores hold, all of them: arena
 *                                                pages resident, block logs and page indexes; 0 for HDFS)
 *   cpu          → ok CPU_MS                      (the CPU time this JVM has used, all its threads)
 *   threads      → ok SNAPSHOT                    (the CPU time of each thread group, {@link ThreadCpu})
 *   repair PATH  → ok SECONDS BYTES              (FFFS: stops DataNode 0 and waits until every block of PATH has
 *                                                its replication again; BYTES: the bytes of the blocks it held)
 * </pre>
 */
public final class FreshServerMain {
  private FreshServerMain() {}

  public static void main(String[] args) {
    BenchLogging.quiet();
    ChildLoop.run(() -> {
      boolean fffs = args[0].equals("FFFS");
      int dataNodes = args.length > 3 ? Integer.parseInt(args[3]) : 1;
      int replication = args.length > 4 ? Integer.parseInt(args[4]) : 1;
      Configuration conf = new Configuration();
      for (int i = 5; i < args.length; i++) {
        int eq = args[i].indexOf('=');
        conf.set(args[i].substring(0, eq), args[i].substring(eq + 1));
      }
      MiniFffsCluster ffs = fffs ? Clusters.fffs(Paths.get(args[1]), conf, Long.parseLong(args[2]), dataNodes,
          replication) : null;
      MiniDFSCluster hdfs = fffs ? null : Clusters.hdfs(Paths.get(args[1]), conf, dataNodes, replication);
      return new ChildLoop.Side() {
        @Override
        public String serve(String[] c) throws Exception {
          switch (c[0]) {
            case "uri" -> {
              return (fffs ? ffs.getURI() : hdfs.getURI()).toString();
            }
            case "quiet" -> {
              if (fffs) {
                FileIo.awaitPersistenceQuiet(ffs);
              }
              return "";
            }
            case "stats" -> {
              StoreStats stats = fffs ? ffs.getDataNode(0).store().stats() : null;
              return stats == null ? "0 0 0 0 0" : stats.pagesReloaded.sum() + " " + stats.segmentReads.sum() + " "
                  + stats.persistBatches.sum() + " " + stats.fsyncs.sum() + " " + stats.pagesSentFromFiles.sum();
            }
            case "unmap" -> {
              for (int i = 0; fffs && i < dataNodes; i++) {
                ffs.getDataNode(i).store().releaseReadMappings();
              }
              return "";
            }
            case "memory" -> {
              long bytes = 0;
              for (int i = 0; fffs && i < dataNodes; i++) {
                MemoryUsage usage = ffs.getDataNode(i).store().memoryUsage();
                bytes += usage.residentPageBytes() + usage.logBytes() + usage.indexBytes();
              }
              return String.valueOf(bytes);
            }
            case "cpu" -> {
              return String.valueOf(((com.sun.management.OperatingSystemMXBean) java.lang.management
                  .ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() / 1_000_000);
            }
            case "threads" -> {
              return ThreadCpu.snapshot();
            }
            case "repair" -> {
              return ReplicationBenchmark.repair(ffs, c[1]);
            }
            default -> throw new IllegalArgumentException("unknown command " + c[0]);
          }
        }

        @Override
        public void close() throws Exception {
          if (ffs != null) {
            ffs.close();
          }
          Clusters.shutdown(hdfs);
        }
      };
    });
  }
}
