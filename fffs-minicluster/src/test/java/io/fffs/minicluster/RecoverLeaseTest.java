package io.fffs.minicluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.FsckReport;
import io.fffs.client.tools.DebugCommand;
import io.fffs.client.tools.FsckCommand;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.minicluster.datapath.Moments;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.SafeModeAction;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hadoop's {@code LeaseRecoverable} and {@code SafeMode} on FFFS, beyond their contract suites: a file whose writer
 * is alive but held dead is closed at once (no soft limit waited for), with every byte the writer hflushed, and the
 * writer is fenced. The DataNode reports its writes only at a full block report here (an hour's delay otherwise), so
 * the recovered length comes from the report the DataNode sends before it confirms the fence.
 */
class RecoverLeaseTest {
  private static final int FLUSHED = 300_000;

  @TempDir
  static Path base;
  private static MiniFffsCluster cluster;

  @BeforeAll
  static void start() throws IOException {
    Configuration conf = new Configuration();
    conf.set(DataNodeServiceConfigKeys.BLOCK_RECEIVED_DELAY_KEY, "1h");
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(1).build();
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void recoverLeaseClosesAnOpenFileAtOnceWithWhatItsWriterHflushed() throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/recover/open");
    byte[] flushed = new byte[FLUSHED];
    Arrays.fill(flushed, (byte) 7);
    try (FreezeFrameFileSystem writer = cluster.getFileSystem(); FreezeFrameFileSystem other = cluster.getFileSystem()) {
      FSDataOutputStream out = writer.create(file);
      out.write(flushed);
      out.hflush();
      long whileOpen = Moments.now(other);
      assertThat(other.isFileClosed(file)).isFalse();
      FsckReport open = other.fsck(file);
      assertThat(open.openFiles()).isEqualTo(1);
      assertThat(open.render(false, false, false, true)).containsPattern("/recover/open \\d+ bytes, .*: OK"
          + " OPENFORWRITE by FFFS_CLIENT_").contains("Files open for write:\t1");
      assertThat(open.render(false, false, false)).doesNotContain("OPENFORWRITE");
      assertThat(FsckCommand.run(cluster.getConfiguration(), new String[] {file.toString(), "-openforwrite"}))
          .isZero();

      assertThat(other.recoverLease(file)).isTrue();

      assertThat(other.fsck(file).openFiles()).isZero();
      assertThat(other.fsck(Moments.at(file, whileOpen)).openFiles()).as("open then").isEqualTo(1);

      assertThat(other.isFileClosed(file)).isTrue();
      assertThat(other.isFileClosed(Moments.at(file, whileOpen))).as("it was open then").isFalse();
      assertThat(other.getFileStatus(file).getLen()).isEqualTo(FLUSHED);
      assertThat(readAll(other, file)).isEqualTo(flushed);
      // The writer is fenced: what it sends now is refused, and none of it shows.
      out.write(new byte[4_000]);
      assertThatThrownBy(out::hflush).isInstanceOf(IOException.class).hasMessageContaining("STALE_WRITER");
      assertThatThrownBy(out::close).isInstanceOf(IOException.class);
      assertThat(readAll(other, file)).isEqualTo(flushed);

      assertThat(other.recoverLease(file)).as("a closed file").isTrue();
      try (FSDataOutputStream append = other.append(file)) {  // no lease to wait for
        append.write(new byte[] {1, 2, 3});
      }
      assertThat(other.getFileStatus(file).getLen()).isEqualTo(FLUSHED + 3);
    }
  }

  @Test
  void aKilledWritersFileIsRecoveredWithEveryByteItHflushed() throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/recover/killed-writer");
    Path log = base.resolve("killed-writer.log");
    try (NodeProcess writer = NodeProcess.start(KilledWriterMain.class.getName(), "-Xmx256m", log,
        "fs.defaultFS=" + cluster.getURI(), "fffs.test.writer.path=" + file)) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (lastFlushed(log) < 200_000) {
        assertThat(System.nanoTime()).as("the writer hflushed 200,000 bytes within 60 s").isLessThan(deadline);
        Thread.sleep(20);
      }
      writer.kill();
    }
    long flushed = lastFlushed(log);
    for (long before = -1; before != flushed; flushed = lastFlushed(log)) {  // its last lines reach the log
      before = flushed;
      Thread.sleep(200);
    }
    try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      assertThat(fs.isFileClosed(file)).isFalse();
      assertThat(fs.recoverLease(file)).isTrue();
      assertThat(fs.isFileClosed(file)).isTrue();
      byte[] all = readAll(fs, file);
      assertThat((long) all.length).as("every hflushed byte").isGreaterThanOrEqualTo(flushed)
          .isEqualTo(fs.getFileStatus(file).getLen());
      for (int i = 0; i < all.length; i++) {
        if (all[i] != KilledWriterMain.pattern(i)) {
          assertThat(all[i]).as("byte %d of %d", i, all.length).isEqualTo(KilledWriterMain.pattern(i));
        }
      }
    }
  }

  /** The bytes the killed writer said it hflushed (its last "flushed N" line), 0 before the first. */
  private static long lastFlushed(Path log) throws IOException {
    long last = 0;
    for (String line : Files.readAllLines(log, UTF_8)) {
      if (line.matches("flushed \\d+")) {
        last = Long.parseLong(line.substring("flushed ".length()));
      }
    }
    return last;
  }

  @Test
  void recoverLeaseAndIsFileClosedSayWhatIsWrongWithTheirPath() throws Exception {
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/recover/dir");
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/recover/guarded");
    try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      fs.mkdirs(dir);
      org.apache.hadoop.fs.Path missing = new org.apache.hadoop.fs.Path("/recover/missing");
      assertThatThrownBy(() -> fs.recoverLease(missing)).isInstanceOf(FileNotFoundException.class)
          .hasMessageContaining("File does not exist: /recover/missing");
      assertThatThrownBy(() -> fs.isFileClosed(missing)).isInstanceOf(FileNotFoundException.class)
          .hasMessageContaining("File does not exist");
      assertThatThrownBy(() -> fs.recoverLease(dir)).isInstanceOf(FileNotFoundException.class)
          .hasMessageContaining("Path is not a file: /recover/dir");
      assertThatThrownBy(() -> fs.isFileClosed(dir)).isInstanceOf(FileNotFoundException.class)
          .hasMessageContaining("Path is not a file");

      FSDataOutputStream out = fs.create(file);
      out.write(new byte[1_000]);
      out.hflush();
      fs.setPermission(file, new FsPermission((short) 0644));
      long open = Moments.now(fs);
      assertThatThrownBy(() -> fs.recoverLease(Moments.at(file, open))).isInstanceOf(IOException.class)
          .hasMessageContaining("READ_ONLY_PAST");
      // Only who may write the file may take it from its writer.
      UserGroupInformation mallory = UserGroupInformation.createRemoteUser("mallory");
      assertThatThrownBy(() -> mallory.doAs((PrivilegedExceptionAction<Boolean>) () -> {
        try (FreezeFrameFileSystem theirs = cluster.getFileSystem()) {
          return theirs.recoverLease(file);
        }
      })).hasMessageContaining("ACCESS_DENIED");
      assertThat(fs.isFileClosed(file)).isFalse();
      out.close();
      assertThat(fs.isFileClosed(file)).isTrue();
    }
  }

  @Test
  void safeModeThroughTheFileSystemIsReadByAnyoneAndChangedByTheSuperuser() throws Exception {
    UserGroupInformation mallory = UserGroupInformation.createRemoteUser("mallory");
    try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      assertThat(mallory.doAs((PrivilegedExceptionAction<Boolean>) () -> {
        try (FreezeFrameFileSystem theirs = cluster.getFileSystem()) {
          return theirs.setSafeMode(SafeModeAction.GET);
        }
      })).isFalse();
      assertThatThrownBy(() -> mallory.doAs((PrivilegedExceptionAction<Boolean>) () -> {
        try (FreezeFrameFileSystem theirs = cluster.getFileSystem()) {
          return theirs.setSafeMode(SafeModeAction.ENTER);
        }
      })).hasMessageContaining("ACCESS_DENIED");
      assertThat(fs.setSafeMode(SafeModeAction.GET)).isFalse();
      try {
        assertThat(fs.setSafeMode(SafeModeAction.ENTER)).isTrue();
        assertThatThrownBy(() -> fs.mkdirs(new org.apache.hadoop.fs.Path("/recover/in-safe-mode")))
            .hasMessageContaining("SAFE_MODE");
      } finally {
        assertThat(fs.setSafeMode(SafeModeAction.LEAVE)).isFalse();
      }
      assertThat(fs.mkdirs(new org.apache.hadoop.fs.Path("/recover/after-safe-mode"))).isTrue();
    }
  }

  @Test
  void debugRecoverLeaseClosesTheFileAndSaysSo() throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/recover/by-command");
    try (FreezeFrameFileSystem writer = cluster.getFileSystem(); FreezeFrameFileSystem other = cluster.getFileSystem()) {
      FSDataOutputStream out = writer.create(file);
      out.write(new byte[5_000]);
      out.hflush();
      ByteArrayOutputStream printed = new ByteArrayOutputStream();
      ByteArrayOutputStream errors = new ByteArrayOutputStream();
      assertThat(DebugCommand.run(cluster.getConfiguration(), new String[] {"recoverLease", "-path", file.toString()},
          new PrintStream(printed, true, UTF_8), new PrintStream(errors, true, UTF_8))).as(errors.toString(UTF_8))
          .isZero();
      assertThat(printed.toString(UTF_8)).contains("recoverLease SUCCEEDED on /recover/by-command");
      assertThat(other.isFileClosed(file)).isTrue();
      assertThat(other.getFileStatus(file).getLen()).isEqualTo(5_000);

      assertThat(DebugCommand.run(cluster.getConfiguration(), new String[] {"recoverLease", "-path",
          "/recover/nothing-here"}, new PrintStream(printed, true, UTF_8), new PrintStream(errors, true, UTF_8)))
          .isEqualTo(1);
      assertThat(errors.toString(UTF_8)).contains("File does not exist: /recover/nothing-here");
      assertThat(DebugCommand.run(cluster.getConfiguration(), new String[] {"recoverLease"},
          new PrintStream(printed, true, UTF_8), new PrintStream(errors, true, UTF_8))).isEqualTo(2);
      assertThat(errors.toString(UTF_8)).contains("no -path");
    }
  }

  private static byte[] readAll(FreezeFrameFileSystem fs, org.apache.hadoop.fs.Path file) throws IOException {
    try (FSDataInputStream in = fs.open(file)) {
      return in.readAllBytes();
    }
  }
}
