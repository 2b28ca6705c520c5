package io.fffs.minicluster.contract.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Reads of the past through the plain {@link FileSystem} API: a path with a time marker reads
 * the file, status and listing as they were then, after overwrite, delete, rename and truncate; the answer never
 * changes, not even across a restart; a time the cluster has not reached is {@code TIME_IN_FUTURE}; a marker that
 * does not parse is {@code MALFORMED_TIME} while a name that merely holds an {@code @} is a name; and the past is
 * read-only ({@code READ_ONLY_PAST}).
 */
public abstract class AbstractTemporalReadContractTest extends AbstractTemporalContractTestBase {
  protected AbstractTemporalReadContractTest(FileSystemSource source) {
    super(source);
  }

  /**
   * Stops and starts the servers on their persistent state; the suite's repeatability case then asks its questions
   * again. Skip (JUnit assumption) if the implementation cannot restart.
   */
  protected abstract void restartCluster() throws IOException;

  /**
   * A file system whose new files take user times from their records, with {@link #userTimeRecord} making the
   * records; {@code null} (the default) skips the user-time case.
   */
  protected FileSystem userTimeFileSystem() throws IOException {
    return null;
  }

  /** One record with user time {@code micros} for {@link #userTimeFileSystem()}'s files. */
  protected byte[] userTimeRecord(long micros, byte payload) {
    throw new UnsupportedOperationException("no user-time records");
  }

  @Test
  void fileAfterOverwrite() throws Exception {
    Path file = new Path(dir, "f.txt");
    write(file, "first version");
    long t1 = momentBetweenChanges();
    write(file, "second, longer version");
    long t2 = momentBetweenChanges();

    assertThat(readText(file)).isEqualTo("second, longer version");
    assertThat(readText(at(file, t1))).isEqualTo("first version");
    assertThat(readText(at(file, t2))).isEqualTo("second, longer version");
    FileStatus past = fs.getFileStatus(at(file, t1));
    assertThat(past.isFile()).isTrue();
    assertThat(past.getLen()).isEqualTo("first version".length());
    assertThat(past.getPath().toUri().getPath()).as("a past status keeps its marker")
        .isEqualTo(at(file, t1).toUri().getPath());
    assertThat(fs.getFileStatus(at(file, t2)).getLen()).isEqualTo("second, longer version".length());
  }

  @Test
  void fileBeforeItExistedIsNotFound() throws Exception {
    long before = momentBetweenChanges();
    Path file = new Path(dir, "late.txt");
    write(file, "x");
    assertThatThrownBy(() -> fs.getFileStatus(at(file, before))).isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> fs.open(at(file, before)).close()).isInstanceOf(FileNotFoundException.class);
    assertThat(fs.exists(at(file, before))).isFalse();
  }

  @Test
  void fileAfterDelete() throws Exception {
    Path file = new Path(dir, "gone.txt");
    write(file, "still here in the past");
    long t = momentBetweenChanges();
    assertThat(fs.delete(file, false)).isTrue();

    assertThat(fs.exists(file)).isFalse();
    assertThat(readText(at(file, t))).isEqualTo("still here in the past");
    assertThat(fs.getFileStatus(at(file, t)).getLen()).isEqualTo("still here in the past".length());
    assertThat(names(at(dir, t))).containsExactly("gone.txt");
    assertThat(names(dir)).isEmpty();
  }

  @Test
  void fileAfterRename() throws Exception {
    Path from = new Path(dir, "a.txt");
    Path to = new Path(dir, "b.txt");
    write(from, "renamed content");
    long t = momentBetweenChanges();
    assertThat(fs.rename(from, to)).isTrue();

    assertThat(readText(at(from, t))).isEqualTo("renamed content");
    assertThatThrownBy(() -> fs.getFileStatus(at(to, t))).isInstanceOf(FileNotFoundException.class);
    assertThat(readText(to)).isEqualTo("renamed content");
    assertThat(fs.exists(from)).isFalse();
    assertThat(names(at(dir, t))).containsExactly("a.txt");
    assertThat(names(dir)).containsExactly("b.txt");
  }

  @Test
  void fileAfterTruncate() throws Exception {
    Path file = new Path(dir, "t.txt");
    write(file, "0123456789");
    long t = momentBetweenChanges();
    fs.truncate(file, 4);
    long after = momentBetweenChanges();

    assertThat(readText(file)).isEqualTo("0123");
    assertThat(fs.getFileStatus(file).getLen()).isEqualTo(4);
    assertThat(readText(at(file, t))).isEqualTo("0123456789");
    assertThat(fs.getFileStatus(at(file, t)).getLen()).isEqualTo(10);
    assertThat(readText(at(file, after))).isEqualTo("0123");
  }

  @Test
  void directoryListingsOfThePast() throws Exception {
    Path table = new Path(dir, "table");
    write(new Path(table, "part-0"), "zero");
    write(new Path(table, "part-1"), "one");
    long t1 = momentBetweenChanges();
    write(new Path(table, "part-2"), "two");
    fs.delete(new Path(table, "part-0"), false);
    write(new Path(table, "part-1"), "one, overwritten");
    long t2 = momentBetweenChanges();
    fs.delete(table, true);

    FileStatus[] past = fs.listStatus(at(table, t1));
    assertThat(past).hasSize(2);
    for (FileStatus child : past) {
      // Children keep the marker, so a job that reads what it listed reads the past without knowing about time.
      assertThat(child.getPath().toString()).contains(systemMarker(t1));
    }
    assertThat(readText(past[0].getPath()) + "|" + readText(past[1].getPath())).isEqualTo("zero|one");
    assertThat(names(at(table, t2))).containsExactly("part-1", "part-2");
    assertThat(readText(new Path(at(table, t2), "part-1"))).isEqualTo("one, overwritten");
    assertThat(fs.exists(table)).isFalse();
    assertThat(fs.getFileStatus(at(table, t2)).isDirectory()).isTrue();
  }

  @Test
  void markerOnAnyComponentAppliesToTheWholePath() throws Exception {
    Path sub = new Path(dir, "sub");
    Path file = new Path(sub, "f");
    write(file, "old");
    long t = momentBetweenChanges();
    write(file, "new");

    assertThat(readText(new Path(at(sub, t), "f"))).isEqualTo("old");
    assertThat(readText(at(file, t))).isEqualTo("old");
    assertThat(describe(fs.getFileStatus(new Path(at(sub, t), "f")))).isEqualTo(describe(fs.getFileStatus(
        at(file, t))));
  }

  @Test
  void statusOfThePastShowsOldAttributes() throws Exception {
    Path file = new Path(dir, "attrs");
    write(file, "abc");
    fs.setPermission(file, new FsPermission((short) 0640));
    long t = momentBetweenChanges();
    fs.setPermission(file, new FsPermission((short) 0600));
    try (FSDataOutputStream out = fs.append(file)) {
      out.write(bytes("def"));
    }

    FileStatus past = fs.getFileStatus(at(file, t));
    assertThat(past.getPermission()).isEqualTo(new FsPermission((short) 0640));
    assertThat(past.getLen()).isEqualTo(3);
    assertThat(fs.getFileStatus(file).getPermission()).isEqualTo(new FsPermission((short) 0600));
    assertThat(readText(at(file, t))).isEqualTo("abc");
    assertThat(readText(file)).isEqualTo("abcdef");
  }

  @Test
  void sameAnswerTwiceAndAfterRestart() throws Exception {
    Path file = new Path(dir, "stable.bin");
    byte[] first = new byte[200_000];
    for (int i = 0; i < first.length; i++) {
      first[i] = (byte) (i * 7 + i / 3);
    }
    write(file, first);
    write(new Path(dir, "sibling"), "s");
    long t = momentBetweenChanges();
    write(file, "replaced");
    fs.delete(new Path(dir, "sibling"), false);

    List<Object> answers = answersAt(file, t);
    assertThat(read(at(file, t))).isEqualTo(first);
    assertThat(answersAt(file, t)).as("asked twice").isEqualTo(answers);

    restartCluster();
    assertThat(answersAt(file, t)).as("after a restart").isEqualTo(answers);
    assertThat(read(at(file, t))).isEqualTo(first);
    assertThat(readText(file)).isEqualTo("replaced");
  }

  /** Everything a reader can ask about {@code file} and its directory at {@code t}, in comparable form. */
  private List<Object> answersAt(Path file, long t) throws IOException {
    byte[] content = read(at(file, t));
    return List.of(content.length, Arrays.hashCode(content), describe(fs.getFileStatus(at(file, t))),
        names(at(dir, t)), fs.getContentSummary(at(dir, t)).getLength());
  }

  @Test
  void timeInTheFutureIsRefused() throws Exception {
    Path file = new Path(dir, "f");
    write(file, "now");
    long future = momentBetweenChanges() + 60_000_000L;
    assertCode("TIME_IN_FUTURE", () -> fs.open(at(file, future)).close());
    assertCode("TIME_IN_FUTURE", () -> fs.getFileStatus(at(file, future)));
    assertCode("TIME_IN_FUTURE", () -> fs.listStatus(at(dir, future)));
  }

  @Test
  void malformedMarkersAreErrorsNotNames() throws Exception {
    Path file = new Path(dir, "f");
    write(file, "x");
    for (String bad : new String[] {"f@s12x4", "f@s1.2345", "f@u", "f@20261121T10Z", "f@s1@s2"}) {
      assertCode("MALFORMED_TIME", () -> fs.getFileStatus(new Path(dir, bad)));
    }
    assertCode("MALFORMED_TIME", () -> fs.getFileStatus(new Path(dir + "/@s1/f")));
    assertCode("MALFORMED_TIME", () -> fs.create(new Path(dir, "new@s12x4"), true).close());
  }

  @Test
  void namesWithAnAtSignArePlainNames() throws Exception {
    for (String name : new String[] {"me@example.com", "x@sales", "report@v2", "trailing@"}) {
      Path file = new Path(dir, name);
      write(file, name);
      assertThat(readText(file)).isEqualTo(name);
      assertThat(fs.getFileStatus(file).getPath().getName()).isEqualTo(name);
    }
    assertThat(names(dir)).containsExactly("me@example.com", "report@v2", "trailing@", "x@sales");
    long t = momentBetweenChanges();
    Path mail = new Path(dir, "me@example.com");
    fs.delete(mail, false);
    assertThat(readText(at(mail, t))).isEqualTo("me@example.com");
  }

  @Test
  void thePastIsReadOnly() throws Exception {
    Path file = new Path(dir, "f");
    write(file, "x");
    long t = momentBetweenChanges();
    Path past = at(file, t);
    assertCode("READ_ONLY_PAST", () -> fs.create(past, true).close());
    assertCode("READ_ONLY_PAST", () -> fs.append(past).close());
    assertCode("READ_ONLY_PAST", () -> fs.delete(past, false));
    assertCode("READ_ONLY_PAST", () -> fs.rename(past, new Path(dir, "g")));
    assertCode("READ_ONLY_PAST", () -> fs.rename(file, at(new Path(dir, "g"), t)));
    assertCode("READ_ONLY_PAST", () -> fs.mkdirs(new Path(at(dir, t), "d")));
    assertCode("READ_ONLY_PAST", () -> fs.setPermission(past, new FsPermission((short) 0600)));
    assertCode("READ_ONLY_PAST", () -> fs.setTimes(past, 1L, 1L));
    assertCode("READ_ONLY_PAST", () -> fs.truncate(past, 0));
    assertThat(readText(file)).isEqualTo("x");
  }

  @Test
  void readsByUserTime() throws Exception {
    FileSystem userFs = userTimeFileSystem();
    Assumptions.assumeTrue(userFs != null, "no user-time file system");
    Path file = new Path(dir, "sensor");
    try {
      try (FSDataOutputStream out = userFs.create(file, true)) {
        for (int i = 1; i <= 10; i++) {
          out.write(userTimeRecord(i * 1000L, (byte) i));
          out.hflush();
        }
      }
    } finally {
      userFs.close();
    }
    int record = userTimeRecord(0, (byte) 0).length;
    byte[] upToFive = read(new Path(file + userMarker(5000)));
    assertThat(upToFive).hasSize(5 * record);
    assertThat(upToFive[upToFive.length - 1]).isEqualTo((byte) 5);
    assertThat(read(new Path(file + userMarker(500)))).isEmpty();
    assertThat(read(file)).hasSize(10 * record);
  }
}
