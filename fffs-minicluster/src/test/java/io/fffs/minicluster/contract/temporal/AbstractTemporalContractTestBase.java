package io.fffs.minicluster.contract.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * What the temporal contract suites share. They are written against Hadoop's plain {@link FileSystem} API and the
 * time-marker grammar only ({@code <path>@s<millis>[.<micros>]}, {@code @u<millis>} for user time; docs/design.md §2),
 * so any file system that reads paths as of a past time can run them: a subclass supplies the file system and the
 * few things the {@code FileSystem} API has no words for (a moment between two changes, a restart).
 *
 * <p>Errors are checked by their stable code, which a conforming file system puts at the start of the message
 * ({@code "TIME_IN_FUTURE: /a@s… is 3.2 s ahead of the cluster clock"}); {@link #assertCode} can be overridden to
 * check a typed code instead.
 */
public abstract class AbstractTemporalContractTestBase {
  /** Supplies the file system under test; called once per test case. */
  @FunctionalInterface
  public interface FileSystemSource {
    FileSystem get() throws IOException;
  }

  private final FileSystemSource source;
  protected FileSystem fs;
  /** A directory of its own for each test case. */
  protected Path dir;

  protected AbstractTemporalContractTestBase(FileSystemSource source) {
    this.source = source;
  }

  /**
   * A system time, in microseconds since the epoch, that is after every change made before the call and before
   * every change made after it. File systems stamp changes with their own clock, so only they can say.
   */
  protected abstract long momentBetweenChanges() throws IOException;

  /** The root of the directories the suites write under. */
  protected Path testRoot() {
    return new Path("/temporal-contract");
  }

  @BeforeEach
  void createTestDirectory(TestInfo test) throws IOException {
    fs = source.get();
    dir = new Path(testRoot(), getClass().getSimpleName() + "/" + test.getTestMethod().orElseThrow().getName());
    fs.delete(dir, true);
    assertThat(fs.mkdirs(dir)).isTrue();
  }

  @AfterEach
  void deleteTestDirectory() throws IOException {
    if (fs != null && dir != null) {
      fs.delete(dir, true);
    }
  }

  // ---- the grammar -------------------------------------------------------------------------------------------

  /** The system-time marker for {@code micros}: {@code @s<millis>} plus a three-digit µs fraction if needed. */
  protected static String systemMarker(long micros) {
    return "@s" + millisText(micros);
  }

  /** The user-time marker for {@code micros}. */
  protected static String userMarker(long micros) {
    return "@u" + millisText(micros);
  }

  private static String millisText(long micros) {
    long fraction = micros % 1000;
    return (micros / 1000) + (fraction == 0 ? "" : String.format(".%03d", fraction));
  }

  /** {@code path} read at system time {@code micros}: the marker on its last component. */
  protected static Path at(Path path, long micros) {
    return new Path(path.toString() + systemMarker(micros));
  }

  // ---- reading and writing -----------------------------------------------------------------------------------

  protected static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  protected void write(Path path, byte[] data) throws IOException {
    try (FSDataOutputStream out = fs.create(path, true)) {
      out.write(data);
    }
  }

  protected void write(Path path, String text) throws IOException {
    write(path, bytes(text));
  }

  protected byte[] read(Path path) throws IOException {
    try (InputStream in = fs.open(path)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }
  }

  protected String readText(Path path) throws IOException {
    return new String(read(path), StandardCharsets.UTF_8);
  }

  /** The names in a listing, sorted. */
  protected List<String> names(Path directory) throws IOException {
    return Arrays.stream(fs.listStatus(directory)).map(s -> s.getPath().getName()).sorted()
        .collect(Collectors.toList());
  }

  /** A repeatable summary of a status: kind, length and permission (what a reader of the past relies on). */
  protected static String describe(FileStatus status) {
    return (status.isDirectory() ? "d " : "f ") + status.getLen() + " " + status.getPermission();
  }

  // ---- errors ------------------------------------------------------------------------------------------------

  /** Asserts that {@code call} fails with an error carrying {@code code}. */
  protected void assertCode(String code, ThrowingCallable call) {
    Throwable thrown = catchThrowable(call);
    assertThat(thrown).as("expected " + code).isNotNull();
    assertThat(thrown).isInstanceOf(IOException.class);
    assertThat(thrown.getMessage()).as("message of " + thrown).contains(code);
  }
}
