package io.fffs.minicluster.ha;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three NameNode processes and a DataNode; four clients write files in small blocks, each chunk hflushed and every
 * third hsynced, while the leader is killed with SIGKILL. Every writer goes on through the failover (its block
 * allocations and length records go to the new leader), no hsynced byte is lost, every file holds exactly what its
 * writer wrote, and reads at past times recorded before the kill answer the same bytes after it.
 */
class LeaderKillWritesTest {
  private static final int WRITERS = 4;
  private static final int CHUNK = 4096;
  private static final long BLOCK_SIZE = 64 * 1024;

  @TempDir
  Path dir;

  private static byte patternAt(int writer, long offset) {
    return (byte) (offset * 31 + writer * 7 + offset / 251);
  }

  /** One client writing its file until told to stop; what it wrote and hsynced is kept. */
  private static final class Writer extends StormClient {
    final FreezeFrameFileSystem fs;
    volatile long written;
    volatile long hsynced;

    Writer(int index, FreezeFrameFileSystem fs, AtomicBoolean stop, CountDownLatch started) {
      super(index, stop, started);
      this.fs = fs;
    }

    String path() {
      return "/writes/w" + client;
    }

    @Override
    void work() throws IOException {
      byte[] chunk = new byte[CHUNK];
      try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path()), FsPermission.getFileDefault(),
          true, 4096, (short) 1, BLOCK_SIZE, null)) {
        for (int n = 0; !stop.get(); n++) {
          for (int i = 0; i < CHUNK; i++) {
            chunk[i] = patternAt(client, written + i);
          }
          out.write(chunk);
          out.hflush();
          written += CHUNK;
          if (n % 3 == 2) {
            out.hsync();
            hsynced = written;
          }
          if (n == 8) {
            warmedUp.countDown();
          }
        }
      }
    }
  }

  private static byte[] read(FreezeFrameFileSystem fs, String path, TimeSpec time) throws IOException {
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path), time)) {
      return in.readAllBytes();
    }
  }

  @Test
  void killingTheLeaderDuringWritesLosesNoSyncedByteAndChangesNoPastRead() throws Exception {
    try (HaProcessCluster cluster = new HaProcessCluster(dir, 3, 1)) {
      Configuration conf = cluster.clientConf();
      conf.setInt("fffs.replication", 1);
      int leader = cluster.awaitLeader(30_000);
      FreezeFrameFileSystem reader = (FreezeFrameFileSystem) FileSystem.newInstance(URI.create("fffs://"
          + HaProcessCluster.NAMESERVICE), conf);
      reader.mkdirs(new org.apache.hadoop.fs.Path("/writes"));

      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch started = new CountDownLatch(WRITERS);
      List<Writer> writers = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        Writer writer = new Writer(w, (FreezeFrameFileSystem) FileSystem.newInstance(URI.create("fffs://"
            + HaProcessCluster.NAMESERVICE), conf), stop, started);
        writers.add(writer);
        Thread thread = new Thread(writer, "writer-" + w);
        threads.add(thread);
        thread.start();
      }
      started.await();

      // What each file held at a moment before the kill, read then.
      long[] syncedAtPast = new long[WRITERS];
      for (int w = 0; w < WRITERS; w++) {
        syncedAtPast[w] = writers.get(w).hsynced;
      }
      TimeSpec past = TimeSpec.system(reader.currentTime().physicalMicros());
      Thread.sleep(100);
      List<byte[]> before = new ArrayList<>();
      for (Writer writer : writers) {
        before.add(read(reader, writer.path(), past));
      }

      long[] syncedAtKill = new long[WRITERS];
      for (int w = 0; w < WRITERS; w++) {
        syncedAtKill[w] = writers.get(w).hsynced;
      }
      cluster.kill(leader);
      long killed = System.nanoTime();
      reader.mkdirs(new org.apache.hadoop.fs.Path("/after-kill"));
      long failoverMs = (System.nanoTime() - killed) / 1_000_000;
      long[] writtenAtFailover = new long[WRITERS];
      for (int w = 0; w < WRITERS; w++) {
        writtenAtFailover[w] = writers.get(w).written;
      }
      StormClient.awaitProgress(() -> writers.stream().allMatch(w -> w.written > writtenAtFailover[w.client]),
          writers);
      stop.set(true);
      for (Thread thread : threads) {
        thread.join(60_000);
      }
      System.out.printf("leader nn%d killed during writes: first change on the new leader after %d ms%n",
          leader + 1, failoverMs);

      for (Writer writer : writers) {
        assertThat(writer.failure).as("writer %d (cluster log:\n%s)", writer.client, cluster.logTail()).isNull();
        assertThat(writer.written).as("writer %d went on after the failover", writer.client)
            .isGreaterThan(writtenAtFailover[writer.client]);
        byte[] now = read(reader, writer.path(), TimeSpec.latest());
        assertThat((long) now.length).as("length of writer %d's file", writer.client).isEqualTo(writer.written);
        assertThat(now.length).as("writer %d's bytes hsynced before the kill", writer.client)
            .isGreaterThanOrEqualTo((int) syncedAtKill[writer.client]);
        for (int i = 0; i < now.length; i++) {
          if (now[i] != patternAt(writer.client, i)) {
            throw new AssertionError("writer " + writer.client + "'s file differs at byte " + i);
          }
        }
        byte[] pastNow = read(reader, writer.path(), past);
        assertThat(pastNow.length).as("past read of writer %d", writer.client)
            .isGreaterThanOrEqualTo((int) syncedAtPast[writer.client]);
        assertThat(Arrays.equals(pastNow, before.get(writer.client)))
            .as("writer %d's file at the past moment reads the same after the failover", writer.client).isTrue();
        writer.fs.close();
      }
      reader.close();
    }
  }
}
