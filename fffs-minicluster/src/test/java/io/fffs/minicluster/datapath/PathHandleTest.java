package io.fffs.minicluster.datapath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.InvalidPathHandleException;
import org.apache.hadoop.fs.Options.HandleOpt;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathHandle;
import org.apache.hadoop.fs.RawPathHandle;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Path handles beyond Hadoop's contract suite: the inode is followed through renames and told apart from a new file
 * at its old path, a handle survives its bytes, a handle of a past state opens that state, and what is not a handle
 * of this file system is refused.
 */
class PathHandleTest {
  @TempDir
  static java.nio.file.Path base;
  private static MiniFffsCluster cluster;
  private static FreezeFrameFileSystem fs;

  @BeforeAll
  static void start() throws IOException {
    cluster = MiniFffsCluster.builder().baseDir(base).build();
    fs = cluster.getFileSystem();
  }

  @AfterAll
  static void stop() throws IOException {
    if (fs != null) {
      fs.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static void write(Path path, String text) throws IOException {
    try (FSDataOutputStream out = fs.create(path, true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static String read(PathHandle handle) throws IOException {
    try (FSDataInputStream in = fs.open(handle)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void aHandleFollowsItsFileAndRefusesWhatItsOptionsForbid() throws Exception {
    Path a = new Path("/ph/a");
    write(a, "first");
    FileStatus status = fs.getFileStatus(a);
    PathHandle exact = fs.getPathHandle(status, HandleOpt.exact());
    PathHandle content = fs.getPathHandle(status, HandleOpt.content());
    PathHandle reference = new RawPathHandle(fs.getPathHandle(status, HandleOpt.reference()).bytes());
    assertThat(read(new RawPathHandle(exact.bytes()))).as("from its bytes").isEqualTo("first");
    assertThat(new RawPathHandle(exact.bytes())).isEqualTo(exact).hasSameHashCodeAs(exact);

    Path b = new Path("/ph/b");
    assertThat(fs.rename(a, b)).isTrue();
    write(a, "an impostor at the old path");
    assertThatThrownBy(() -> read(exact)).isInstanceOf(InvalidPathHandleException.class)
        .hasMessageContaining("was moved");
    assertThat(read(content)).as("renamed, not changed").isEqualTo("first");
    // Tied to its path, the handle refuses: it never reads the file that took the name.
    assertThatThrownBy(() -> read(fs.getPathHandle(status, HandleOpt.path())))
        .isInstanceOf(InvalidPathHandleException.class).hasMessageContaining("was moved");

    try (FSDataOutputStream out = fs.append(b)) {
      out.write(" and more".getBytes(StandardCharsets.UTF_8));
    }
    assertThatThrownBy(() -> read(content)).isInstanceOf(InvalidPathHandleException.class)
        .hasMessageContaining("was changed at");
    assertThat(read(reference)).isEqualTo("first and more");

    assertThat(fs.delete(b, false)).isTrue();
    assertThatThrownBy(() -> read(reference)).isInstanceOf(InvalidPathHandleException.class)
        .hasMessageContaining("was deleted");
  }

  @Test
  void aFileReplacedByCreateIsGoneForItsHandles() throws Exception {
    Path file = new Path("/ph/replaced");
    write(file, "old");
    PathHandle reference = fs.getPathHandle(fs.getFileStatus(file), HandleOpt.reference());
    write(file, "new");  // overwrite: a new inode under the same name
    assertThatThrownBy(() -> read(reference)).isInstanceOf(InvalidPathHandleException.class)
        .hasMessageContaining("was deleted");
  }

  @Test
  void aChangeOfPermissionsIsAChangeOfTheFilesState() throws Exception {
    Path file = new Path("/ph/mode");
    write(file, "bytes");
    PathHandle content = fs.getPathHandle(fs.getFileStatus(file), HandleOpt.content());
    fs.setPermission(file, new FsPermission((short) 0600));
    assertThatThrownBy(() -> read(content)).isInstanceOf(InvalidPathHandleException.class)
        .hasMessageContaining("was changed at");
  }

  @Test
  void aHandleOfAPastStateOpensThatState() throws Exception {
    Path file = new Path("/ph/past");
    write(file, "as it was");
    long then = Moments.now(fs);
    fs.delete(file, false);
    write(file, "as it is");
    Path past = Moments.at(file, then);
    PathHandle handle = fs.getPathHandle(fs.getFileStatus(past), HandleOpt.exact());
    assertThat(read(new RawPathHandle(handle.bytes()))).isEqualTo("as it was");
  }

  @Test
  void aHandleNeverShowsWhereItsFileWentUnlessItsHolderMayListThatDirectory() throws Exception {
    Path open = new Path("/ph/shared/f");
    write(open, "moved about");
    fs.setPermission(new Path("/ph"), new FsPermission((short) 0755));
    fs.mkdirs(new Path("/ph/hidden"), new FsPermission((short) 0711));  // bob may pass, not list
    fs.setPermission(new Path("/ph/hidden"), new FsPermission((short) 0711));
    fs.mkdirs(new Path("/ph/listed"), new FsPermission((short) 0755));
    FreezeFrameFileSystem bob = UserGroupInformation.createUserForTesting("bob", new String[] {"bob-group"})
        .doAs((PrivilegedExceptionAction<FreezeFrameFileSystem>) () ->
            (FreezeFrameFileSystem) FileSystem.newInstance(cluster.getURI(), cluster.getConfiguration()));
    try (bob) {
      PathHandle reference = bob.getPathHandle(bob.getFileStatus(open), HandleOpt.reference());
      assertThat(fs.rename(open, new Path("/ph/hidden/f"))).isTrue();
      assertThatThrownBy(() -> bob.open(reference)).isInstanceOf(InvalidPathHandleException.class)
          .hasMessageContaining("moved where you cannot list it").hasMessageNotContaining("hidden");
      assertThat(fs.rename(new Path("/ph/hidden/f"), new Path("/ph/listed/f"))).isTrue();
      try (FSDataInputStream in = bob.open(reference)) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("moved about");
      }
    }
  }

  @Test
  void whatIsNotAHandleOfThisFileSystemIsRefused() throws Exception {
    Path file = new Path("/ph/plain");
    write(file, "x");
    // A status without its inode (listFiles gives copies) stands for the file at its path now.
    FileStatus listed = fs.listFiles(new Path("/ph"), false).next();
    assertThat(listed).isNotInstanceOf(io.fffs.client.FffsFileStatus.class);
    assertThat(read(fs.getPathHandle(listed, HandleOpt.exact()))).isNotEmpty();
    FileStatus missing = new FileStatus(1, false, 1, 1, 0, fs.makeQualified(new Path("/ph/none")));
    assertThatThrownBy(() -> fs.getPathHandle(missing)).isInstanceOf(java.io.UncheckedIOException.class)
        .hasMessageContaining("no path handle of").hasMessageContaining("/ph/none does not exist");
    assertThatThrownBy(() -> fs.getPathHandle(fs.getFileStatus(new Path("/ph"))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is a directory");
    assertThatThrownBy(() -> fs.open(new RawPathHandle(ByteBuffer.wrap(new byte[] {9, 9, 9}))))
        .isInstanceOf(InvalidPathHandleException.class).hasMessageContaining("not a path handle of an fffs://");
    // Another cluster's handle (inode ids start alike everywhere) is not opened here.
    PathHandle ours = fs.getPathHandle(fs.getFileStatus(file));
    java.net.URI other = java.net.URI.create("fffs://elsewhere:8020/ph/plain");
    ByteBuffer bytes = ours.bytes();
    ByteBuffer forged = ByteBuffer.allocate(18 + other.toString().length());
    forged.put(bytes.duplicate().limit(18)).put(other.toString().getBytes(StandardCharsets.UTF_8)).flip();
    assertThatThrownBy(() -> fs.open(new RawPathHandle(forged))).isInstanceOf(InvalidPathHandleException.class)
        .hasMessageContaining("made by another file system (elsewhere:8020)");
  }
}
