package io.fffs.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.namenode.NameNodeConfigKeys;
import io.fffs.namenode.fs.Namesystem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A change is answered once its edit is on disk, but its IPC handler does not wait for that: the answer is a
 * deferred response sent by the edit log's notifier. With a single handler, eight clients changing the namespace
 * at once still share fsyncs (a handler that waited for each sync would make every change an fsync of its own),
 * every answered change is in the namespace after a restart, and reads see every answered change.
 */
class DeferredDurabilityTest {
  @TempDir
  Path base;

  @Test
  void oneHandlerServesChangesWhileTheirEditsAreSynced() throws Exception {
    Configuration conf = new Configuration();
    conf.setInt(NameNodeConfigKeys.RPC_HANDLERS_KEY, 1);
    int clients = 8;
    int perClient = 100;
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).numDataNodes(1).conf(conf).build()) {
      List<FileSystem> fss = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        fss.add(FileSystem.newInstance(cluster.getURI(), cluster.getConfiguration()));
      }
      Namesystem ns = cluster.getNameNode().namesystem();
      long batchesBefore = ns.editBatchesSynced();
      ExecutorService pool = Executors.newFixedThreadPool(clients);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
          FileSystem fs = fss.get(c);
          int client = c;
          done.add(pool.submit(() -> {
            for (int i = 0; i < perClient; i++) {
              org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/d" + client + "/m" + i);
              assertThat(fs.mkdirs(dir)).isTrue();
              assertThat(fs.getFileStatus(dir).isDirectory()).isTrue(); // an answered change is visible
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdown();
        for (FileSystem fs : fss) {
          fs.close();
        }
      }
      long batches = ns.editBatchesSynced() - batchesBefore;
      // Each client's first mkdirs also creates its parent: at least 800 edits.
      assertThat(batches).as("fsync'd batches for %d changes through one handler", clients * perClient)
          .isLessThan(clients * perClient * 3L / 4);

      cluster.restartNameNode();
      try (FileSystem fs = FileSystem.newInstance(cluster.getURI(), cluster.getConfiguration())) {
        for (int c = 0; c < clients; c++) {
          assertThat(fs.listStatus(new org.apache.hadoop.fs.Path("/d" + c))).hasSize(perClient);
        }
      }
    }
  }
}
