package io.fffs.minicluster.datapath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.server.DataServerStats;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.LocalView;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.minicluster.RandomFiles;
import io.fffs.namenode.permission.Caller;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A data-port read of evicted data that an earlier read loaded and checked is sent from the segment files (written
 * from a mapping of each run, unmapped once sent) with the CRCs of that check: the bytes come back right, every
 * mapping is unmapped, and a page damaged on disk since fails the client's check, so the read is refused (CORRUPT),
 * never answered with the damaged bytes.
 */
class SentFromFileReadTest {
  private static final int BLOCK = 1 << 20;
  private static final String FILE = "/sent/f";

  @TempDir
  Path base;

  /**
   * With segment files of the default size (1 GiB) none is ever whole here, so each run is mapped alone; with files of
   * 1 MiB most runs lie in a window of a file that holds all of it, which the file keeps mapped.
   */
  @ParameterizedTest(name = "segment files of {0}")
  @ValueSource(strings = {"1g", "1m"})
  void aSecondReadOfEvictedDataComesFromTheFilesAndDamageSinceTheFirstFailsTheClientsCheck(String segmentFileSize)
      throws Exception {
    Configuration conf = new Configuration();
    conf.set("fffs.datanode.segment.file.size", segmentFileSize);
    conf.setLong("fffs.blocksize", BLOCK);
    conf.setLong("fffs.datanode.memory.capacity", 512 << 10);  // 4 MiB written through it: the first blocks leave
    conf.setInt("fffs.client.write.packet-size", 64 << 10);
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).build()) {
      Configuration client = new Configuration(cluster.getConfiguration());
      client.setBoolean("fffs.client.read.shortcircuit", false);  // every byte through the data port
      client.setInt("fffs.client.read.relocate-attempts", 0);
      try (FileSystem fs = FileSystem.newInstance(cluster.getURI(), client)) {
        byte[] data = RandomFiles.write(fs, FILE, 4 * BLOCK, 41);
        BlockStore store = cluster.getDataNode(0).store();
        assertThat(read(fs, 2 * BLOCK)).isEqualTo(Arrays.copyOf(data, 2 * BLOCK));
        long sentBefore = store.stats().pagesSentFromFiles.sum();
        long loadedBefore = store.stats().pagesReloaded.sum();

        assertThat(read(fs, 2 * BLOCK)).isEqualTo(Arrays.copyOf(data, 2 * BLOCK));
        long pages = 2L * BLOCK / cluster.getConfiguration().getInt("fffs.datanode.page.size", 4096);
        assertThat(store.stats().pagesSentFromFiles.sum() - sentBefore).isEqualTo(pages);
        assertThat(store.stats().pagesReloaded.sum()).isEqualTo(loadedBefore);
        DataServerStats server = cluster.getDataNode(0).serverStats();
        assertThat(server.readRunsMapped.sum()).isPositive();
        if (segmentFileSize.equals("1g")) {
          assertThat(server.readRunsMappedAlone.sum()).isEqualTo(server.readRunsMapped.sum());
        } else {
          assertThat(server.readRunsMappedAlone.sum()).isLessThan(server.readRunsMapped.sum() / 2);
        }
        assertThat(server.readRunsSentWithSendfile.sum()).isZero();
        awaitZero(server.readRunMappingsOpen);

        long blockId = cluster.getNameNode().namesystem().queries.getBlockLocations(
            new Caller("admin", List.of("supergroup")), FILE, TimeSpec.latest(), 0, BLOCK)
            .getBlocks(0).getBlock().getBlockId();
        LocalView.Extent page = store.locate(blockId, 8192, 4096, TimeSpec.latest()).extents().get(0);
        assertThat(page.inArena()).isFalse();
        flip(page.path(), page.position() + 100);
        long sentBeforeDamage = store.stats().pagesSentFromFiles.sum();
        assertThatThrownBy(() -> read(fs, BLOCK)).isInstanceOf(IOException.class).hasMessageContaining("CORRUPT");
        // Sent from the file, the damaged page was not checked again there: the refusal is the client's check.
        assertThat(store.stats().pagesSentFromFiles.sum()).isGreaterThan(sentBeforeDamage);
      }
    }
  }

  /** An answer's mappings are unmapped once it is flushed, about when the client has its bytes. */
  private static void awaitZero(LongAdder open) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (open.sum() != 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(open.sum()).as("mappings of segment-file runs not unmapped").isZero();
  }

  private static byte[] read(FileSystem fs, int length) throws IOException {
    byte[] out = new byte[length];
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(FILE))) {
      in.readFully(0, out);
    }
    return out;
  }

  private static void flip(Path file, long at) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      channel.read(one, at);
      one.put(0, (byte) ~one.get(0)).flip();
      channel.write(one, at);
    }
  }
}
