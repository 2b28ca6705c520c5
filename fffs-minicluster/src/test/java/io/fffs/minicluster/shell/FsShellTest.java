package io.fffs.minicluster.shell;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.contract.SharedCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsShell;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hadoop's {@link FsShell} (what {@code bin/fffs dfs} runs) against the shared cluster, in process, through
 * {@code fs.defaultFS}. The history is made with the shell's own write commands; every read command is then run
 * on the present and on temporal paths ({@code /shell/logs@s<t>}, {@code app.log@s<t>}) and must show the past;
 * every write command on a temporal path must fail saying the past is read-only.
 */
class FsShellTest {
  static final String V1 = "line one\nline two\n";
  static final String MORE = "line three\n";

  @TempDir
  static Path local;
  static Configuration conf;
  static FreezeFrameFileSystem fs;
  /** The marker of a time after the first put, before the appends and moves. */
  static String t1;
  /** The marker of a time after the appends, moves and attribute changes, before the truncate and removes. */
  static String t2;

  /** What one shell command did. */
  record Run(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- out\n" + out + "--- err\n" + err;
    }
  }

  static synchronized Run sh(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    // FsShell's commands pick up System.out/err when they are created, once per run.
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int exit;
    try {
      exit = ToolRunner.run(new FsShell(conf), args);
    } finally {
      System.out.flush();
      System.err.flush();
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    Run run = new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    oldOut.println("$ fffs dfs " + String.join(" ", args) + "\n" + run);
    return run;
  }

  /** Runs a command that must succeed and returns its standard output. */
  static String ok(String... args) throws Exception {
    Run run = sh(args);
    assertThat(run.exit()).as(String.join(" ", args) + " -> " + run).isZero();
    return run.out();
  }

  /** The marker of a moment after everything done so far and before anything done next. */
  static String pastMoment() throws IOException {
    HlcTimestamp now = fs.currentTime();
    while (PhysicalClock.system().currentTimeMicros() <= now.physicalMicros() + 1) {
      Thread.onSpinWait();
    }
    return TimeSpec.system(now.physicalMicros()).toMarker();
  }

  static String localFile(String name, String text) throws IOException {
    Path file = local.resolve(name);
    Files.writeString(file, text);
    return file.toString();
  }

  @BeforeAll
  static void makeHistoryWithTheShell() throws Exception {
    conf = SharedCluster.configuration();
    // FsShell looks its file system up per path; the cache keeps that to one client.
    conf.setBoolean("fs.fffs.impl.disable.cache", false);
    fs = SharedCluster.fileSystem();
    fs.delete(new org.apache.hadoop.fs.Path("/shell"), true);
    String v1 = localFile("v1.txt", V1);
    String more = localFile("more.txt", MORE);

    ok("-mkdir", "-p", "/shell/logs/old");
    ok("-put", v1, "/shell/logs/app.log");
    ok("-touchz", "/shell/logs/empty");
    t1 = pastMoment();
    ok("-appendToFile", more, "/shell/logs/app.log");
    ok("-cp", "/shell/logs/app.log", "/shell/logs/copy.log");
    ok("-mv", "/shell/logs/copy.log", "/shell/logs/old/moved.log");
    ok("-chmod", "600", "/shell/logs/app.log");
    ok("-chown", "alice:staff", "/shell/logs/app.log");
    t2 = pastMoment();
    ok("-truncate", "-w", "4", "/shell/logs/app.log");
    ok("-rm", "/shell/logs/empty");
    ok("-rm", "-r", "/shell/logs/old");
  }

  @AfterAll
  static void closeShellClient() throws IOException {
    if (conf != null) {
      FileSystem.get(conf).close();
    }
  }

  @Test
  void writeCommandsMadeThePresent() throws Exception {
    assertThat(ok("-cat", "/shell/logs/app.log")).isEqualTo("line");
    assertThat(ok("-stat", "%b %a %u:%g", "/shell/logs/app.log")).isEqualTo("4 600 alice:staff\n");
    assertThat(sh("-test", "-e", "/shell/logs/empty").exit()).isEqualTo(1);
    assertThat(sh("-test", "-d", "/shell/logs/old").exit()).isEqualTo(1);
    assertThat(ok("-ls", "-R", "/shell")).contains("/shell/logs/app.log").doesNotContain("old")
        .doesNotContain("empty");
  }

  @Test
  void catHeadTailAndTextShowThePast() throws Exception {
    assertThat(ok("-cat", "/shell/logs/app.log" + t1)).isEqualTo(V1);
    assertThat(ok("-cat", "/shell/logs" + t2 + "/app.log")).isEqualTo(V1 + MORE);
    assertThat(ok("-head", "/shell/logs/app.log" + t2)).isEqualTo(V1 + MORE);
    assertThat(ok("-tail", "/shell/logs/app.log" + t1)).isEqualTo(V1);
    assertThat(ok("-text", "/shell/logs/old/moved.log" + t2)).isEqualTo(V1 + MORE);
    assertThat(ok("-text", "/shell" + t2 + "/logs/old/moved.log")).isEqualTo(V1 + MORE);
  }

  @Test
  void lsShowsThePastWithMarkedPaths() throws Exception {
    String atT1 = ok("-ls", "/shell/logs" + t1);
    assertThat(atT1).contains("Found 3 items").contains("/shell/logs" + t1 + "/app.log")
        .contains("/shell/logs" + t1 + "/empty").contains("/shell/logs" + t1 + "/old");
    String recursive = ok("-ls", "-R", "/shell" + t2);
    assertThat(recursive).contains("/shell" + t2 + "/logs/old/moved.log")
        .contains("/shell" + t2 + "/logs/empty").contains("alice staff");
    assertThat(ok("-ls", "-R", "/shell" + t1)).doesNotContain("moved.log");
  }

  @Test
  void statAndTestSeeThePast() throws Exception {
    // Before the chown: the shell's user, and the group the file inherited from its directory.
    String owner = UserGroupInformation.getCurrentUser().getShortUserName();
    String group = fs.getFileStatus(new org.apache.hadoop.fs.Path("/shell/logs")).getGroup();
    assertThat(ok("-stat", "%b %a %u:%g", "/shell/logs/app.log" + t1))
        .isEqualTo(V1.length() + " 644 " + owner + ":" + group + "\n");
    assertThat(ok("-stat", "%b %a %u:%g %F", "/shell/logs/app.log" + t2))
        .isEqualTo((V1.length() + MORE.length()) + " 600 alice:staff regular file\n");
    assertThat(ok("-stat", "%n", "/shell/logs/app.log" + t2)).isEqualTo("app.log" + t2 + "\n");
    assertThat(sh("-test", "-e", "/shell/logs/empty" + t2).exit()).isZero();
    assertThat(sh("-test", "-z", "/shell/logs/empty" + t1).exit()).isZero();
    assertThat(sh("-test", "-d", "/shell/logs/old" + t2).exit()).isZero();
    assertThat(sh("-test", "-e", "/shell/logs/old/moved.log" + t1).exit()).isEqualTo(1);
  }

  @Test
  void duAndCountAddUpThePast() throws Exception {
    int atT2 = 2 * (V1.length() + MORE.length());
    assertThat(ok("-du", "-s", "/shell/logs" + t2)).startsWith(atT2 + " ");
    assertThat(ok("-du", "-s", "/shell/logs")).startsWith("4 ");
    assertThat(ok("-du", "/shell/logs" + t1)).contains(V1.length() + " ").contains("/shell/logs" + t1
        + "/app.log");
    // DIR_COUNT FILE_COUNT CONTENT_SIZE PATHNAME
    assertThat(ok("-count", "/shell/logs" + t2).trim().split("\\s+"))
        .containsExactly("2", "3", String.valueOf(atT2), "/shell/logs" + t2);
    assertThat(ok("-count", "/shell/logs").trim().split("\\s+"))
        .containsExactly("1", "1", "4", "/shell/logs");
  }

  @Test
  void checksumOfThePastEqualsThatOfItsCopyAndDiffersFromThePresent() throws Exception {
    ok("-cp", "/shell/logs/app.log" + t1, "/shell/v1-copy.log");
    String past = ok("-checksum", "/shell/logs/app.log" + t1);
    String copy = ok("-checksum", "/shell/v1-copy.log");
    // PATH <tab> ALGORITHM <tab> HEX
    assertThat(past.split("\t")[1]).isEqualTo("MD5-of-0MD5-of-512CRC32C");
    assertThat(past.substring(past.indexOf('\t'))).isEqualTo(copy.substring(copy.indexOf('\t')));
    String now = ok("-checksum", "/shell/logs/app.log");
    assertThat(now.substring(now.indexOf('\t'))).isNotEqualTo(past.substring(past.indexOf('\t')));
  }

  @Test
  void getAndCpCopyOutOfThePast() throws Exception {
    Path restoredLocally = local.resolve("restored.txt");
    ok("-get", "/shell/logs/app.log" + t1, restoredLocally.toString());
    assertThat(Files.readString(restoredLocally)).isEqualTo(V1);
    // Restoring an old version is a copy from the past into the present.
    ok("-cp", "/shell/logs/old/moved.log" + t2, "/shell/restored.log");
    assertThat(ok("-cat", "/shell/restored.log")).isEqualTo(V1 + MORE);
  }

  @Test
  void writesToThePastAreRefused() throws Exception {
    String v1 = localFile("v1-again.txt", V1);
    String more = localFile("more-again.txt", MORE);
    String past = "/shell/logs/app.log" + t1;
    String[][] writes = {
        {"-put", v1, "/shell/logs" + t1 + "/new.log"},
        {"-put", "-f", v1, past},
        {"-put", "-d", "-f", v1, past},
        {"-cp", "/shell/logs/app.log", "/shell/logs" + t1 + "/copy.log"},
        {"-cp", "-f", "/shell/logs/app.log", past},
        {"-mv", past, "/shell/moved.log"},
        {"-mv", "/shell/logs/app.log", "/shell/logs" + t1 + "/moved.log"},
        {"-rm", past},
        {"-rm", "-r", "/shell/logs" + t1},
        {"-mkdir", "/shell/logs" + t1 + "/newdir"},
        {"-mkdir", "-p", "/shell/logs" + t1 + "/a/b"},
        {"-touchz", "/shell/logs" + t1 + "/z"},
        {"-appendToFile", more, past},
        {"-chmod", "700", past},
        {"-chown", "bob", past},
        {"-truncate", "1", past},
    };
    for (String[] write : writes) {
      Run run = sh(write);
      assertThat(run.exit()).as(String.join(" ", write) + " -> " + run).isEqualTo(1);
      assertThat(run.err()).as(String.join(" ", write)).contains("READ_ONLY_PAST").contains("read-only");
    }
    // Nothing changed, in the present or the past.
    assertThat(ok("-cat", "/shell/logs/app.log")).isEqualTo("line");
    assertThat(ok("-cat", past)).isEqualTo(V1);
    assertThat(ok("-ls", "/shell/logs")).contains("Found 1 items");
  }

  @Test
  void putWithoutForceOntoAPastFileSaysItExists() throws Exception {
    // FsShell checks the target before writing: the file did exist then, so "File exists", as for any file.
    Run run = sh("-put", localFile("x.txt", "x"), "/shell/logs/app.log" + t1);
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err()).contains("File exists");
  }

  @Test
  void badTimesAreReportedByCode() throws Exception {
    Run malformed = sh("-cat", "/shell/logs/app.log@s12x4");
    assertThat(malformed.exit()).isEqualTo(1);
    assertThat(malformed.err()).contains("MALFORMED_TIME");
    long future = PhysicalClock.system().currentTimeMicros() + 3_600_000_000L;
    Run ahead = sh("-cat", "/shell/logs/app.log" + TimeSpec.system(future).toMarker());
    assertThat(ahead.exit()).isEqualTo(1);
    assertThat(ahead.err()).contains("TIME_IN_FUTURE");
    // A name with an '@' that is not a time is just a name.
    ok("-put", localFile("mail.txt", "hi"), "/shell/me@example.com");
    assertThat(ok("-cat", "/shell/me@example.com")).isEqualTo("hi");
    ok("-rm", "/shell/me@example.com");
  }
}
