package io.fffs.bench.e2e;

import io.fffs.bench.BenchLogging;
import io.fffs.bench.child.ChildLoop;
import io.fffs.datanode.store.StoreStats;
import io.fffs.minicluster.MiniFffsCluster;
import java.nio.file.Paths;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * The cluster of one {@link FreshBenchmark} configuration in a JVM of its own: {@code FreshServerMain FFFS|HDFS DIR
 * ARENA_BYTES [KEY=VALUE]...} starts an FFFS {@code MiniFffsCluster} (persistence on, the default) or an HDFS
 * {@code MiniDFSCluster} with one DataNode (and those settings) and serves ({@link io.fffs.bench.child.ChildLoop}):
 * <pre>
 *   uri        → ok URI                        (the file system clients connect to)
 *   quiet      → ok                            (FFFS: waits until persistence has gone quiet)
 *   stats      → ok PAGES_RELOADED SEGMENT_READS  (FFFS; 0 0 for HDFS)
 * </pre>
 */
public final class FreshServerMain {
  private FreshServerMain() {}

  public static void main(String[] args) {
    BenchLogging.quiet();
    ChildLoop.run(() -> {
      boolean fffs = args[0].equals("FFFS");
      Configuration conf = new Configuration();
      for (int i = 3; i < args.length; i++) {
        int eq = args[i].indexOf('=');
        conf.set(args[i].substring(0, eq), args[i].substring(eq + 1));
      }
      MiniFffsCluster ffs = fffs ? Clusters.fffs(Paths.get(args[1]), conf, Long.parseLong(args[2])) : null;
      MiniDFSCluster hdfs = fffs ? null : Clusters.hdfs(Paths.get(args[1]), conf);
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
              return stats == null ? "0 0" : stats.pagesReloaded.sum() + " " + stats.segmentReads.sum();
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
