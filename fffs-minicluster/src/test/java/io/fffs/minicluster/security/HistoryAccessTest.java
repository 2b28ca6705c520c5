package io.fffs.minicluster.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FffsDataOutputStream;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.io.IOUtils;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Access to the past: a query at a time is checked against the permissions of that time (HDFS's rules applied to
 * the state as it was), and no operation — as any user — changes what a past time shows.
 */
class HistoryAccessTest {
  @TempDir
  static java.nio.file.Path base;
  static MiniFffsCluster cluster;
  static FreezeFrameFileSystem admin;
  static FreezeFrameFileSystem alice;
  static FreezeFrameFileSystem bob;

  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", 1 << 20);
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(1).build();
    admin = cluster.getFileSystem();
    admin.mkdirs(new Path("/shared"));
    admin.setPermission(new Path("/shared"), new FsPermission((short) 0777));
    alice = as("alice");
    bob = as("bob");
  }

  private static FreezeFrameFileSystem as(String user) throws Exception {
    UserGroupInformation ugi = UserGroupInformation.createUserForTesting(user, new String[] {user + "-group"});
    return ugi.doAs((PrivilegedExceptionAction<FreezeFrameFileSystem>) () ->
        (FreezeFrameFileSystem) FileSystem.newInstance(cluster.getURI(), cluster.getConfiguration()));
  }

  @AfterAll
  static void stop() throws IOException {
    for (FileSystem fs : new FileSystem[] {bob, alice, admin}) {
      if (fs != null) {
        fs.close();
      }
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String read(FileSystem fs, Path path) throws IOException {
    try (FSDataInputStream in = fs.open(path)) {
      return new String(IOUtils.readFullyToByteArray(in), StandardCharsets.UTF_8);
    }
  }

  private static String read(FreezeFrameFileSystem fs, Path path, TimeSpec time) throws IOException {
    try (FSDataInputStream in = fs.open(path, time)) {
      return new String(IOUtils.readFullyToByteArray(in), StandardCharsets.UTF_8);
    }
  }

  private static void write(FileSystem fs, Path path, String text) throws IOException {
    try (FSDataOutputStream out = fs.create(path)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static TimeSpec now() throws IOException {
    return TimeSpec.system(admin.currentTime().physicalMicros());
  }

  @Test
  void aFilesPastIsReadableOnlyByThoseWhoCouldReadItThen() throws Exception {
    Path file = new Path("/shared/diary");
    write(alice, file, "monday");
    alice.setPermission(file, new FsPermission((short) 0644));
    TimeSpec t1 = now();
    Thread.sleep(5);
    alice.setPermission(file, new FsPermission((short) 0600));  // alice:alice-group 600 from now on
    TimeSpec t2 = now();

    assertThat(read(bob, file, t1)).isEqualTo("monday");  // bob could read it then
    assertThat(read(bob, new Path(file + "@s" + t1.micros() / 1000 + "." + String.format("%03d",
        t1.micros() % 1000)))).isEqualTo("monday");  // the same through a temporal path
    assertThatThrownBy(() -> read(bob, file, t2)).isInstanceOf(AccessControlException.class)
        .hasMessageContaining("user bob lacks read permission on /shared/diary (alice:");
    assertThatThrownBy(() -> read(bob, file)).isInstanceOf(AccessControlException.class);
    assertThat(bob.getFileStatus(file).getLen()).isEqualTo(6);  // a status needs traverse permission only (HDFS)
    assertThat(read(alice, file, t2)).isEqualTo("monday");

    // The other way round: opened up later does not open up the past.
    Path secret = new Path("/shared/secret");
    write(alice, secret, "before");
    alice.setPermission(secret, new FsPermission((short) 0600));
    TimeSpec closed = now();
    Thread.sleep(5);
    alice.setPermission(secret, new FsPermission((short) 0644));
    assertThat(read(bob, secret)).isEqualTo("before");
    assertThatThrownBy(() -> read(bob, secret, closed)).isInstanceOf(AccessControlException.class);

    // A directory that could not be traversed then hides its files' past as well.
    Path dir = new Path("/shared/private");
    alice.mkdirs(dir);
    alice.setPermission(dir, new FsPermission((short) 0700));
    write(alice, new Path(dir, "f"), "hidden");
    TimeSpec hidden = now();
    Thread.sleep(5);
    alice.setPermission(dir, new FsPermission((short) 0755));
    assertThat(read(bob, new Path(dir, "f"))).isEqualTo("hidden");
    assertThatThrownBy(() -> read(bob, new Path(dir, "f"), hidden)).isInstanceOf(AccessControlException.class)
        .hasMessageContaining("execute");
  }

  @Test
  void noOperationChangesThePast() throws Exception {
    Path file = new Path("/shared/history");
    write(alice, file, "0123456789");
    alice.setPermission(file, new FsPermission((short) 0644));
    TimeSpec t1 = now();
    FileStatus before = alice.getFileStatus(file, t1);
    Thread.sleep(5);

    try (FffsDataOutputStream out = alice.openForWrite(file)) {  // overwrite in place
      out.write("abc".getBytes(StandardCharsets.UTF_8));
    }
    try (FSDataOutputStream out = alice.append(file)) {
      out.write("tail".getBytes(StandardCharsets.UTF_8));
    }
    alice.truncate(file, 4);
    alice.setPermission(file, new FsPermission((short) 0600));
    admin.setOwner(file, "bob", "bob-group");
    admin.setTimes(file, 1_000, 1_000);
    admin.rename(file, new Path("/shared/moved"));
    write(admin, file, "a new file under the old name");
    admin.delete(new Path("/shared/moved"), false);
    // Writes addressed to the past are refused, whoever asks.
    Path past = new Path(file + "@s" + t1.micros() / 1000);
    assertThatThrownBy(() -> admin.create(past)).hasMessageContaining("READ_ONLY_PAST");
    assertThatThrownBy(() -> admin.delete(past, false)).hasMessageContaining("READ_ONLY_PAST");
    assertThatThrownBy(() -> alice.truncate(past, 0)).hasMessageContaining("READ_ONLY_PAST");

    assertThat(read(alice, file, t1)).isEqualTo("0123456789");
    assertThat(read(bob, file, t1)).isEqualTo("0123456789");  // its permission then was 644
    FileStatus after = alice.getFileStatus(file, t1);
    assertThat(after.getLen()).isEqualTo(before.getLen());
    assertThat(after.getPermission()).isEqualTo(before.getPermission());
    assertThat(after.getOwner()).isEqualTo(before.getOwner()).isEqualTo("alice");
    assertThat(after.getModificationTime()).isEqualTo(before.getModificationTime());
    assertThat(read(admin, file)).isEqualTo("a new file under the old name");
  }
}
