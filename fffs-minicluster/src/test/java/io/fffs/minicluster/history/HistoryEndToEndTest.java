package io.fffs.minicluster.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FileVersion;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.Pin;
import io.fffs.client.errors.CodedException;
import io.fffs.client.tools.HistoryCommand;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bounded history through the client, the path grammar and {@code bin/fffs history}: rules, pins read by name, the
 * horizon as an error a Hadoop program sees (a FileNotFoundException carrying HISTORY_EXPIRED).
 */
class HistoryEndToEndTest {
  @TempDir
  static java.nio.file.Path base;
  static MiniFffsCluster cluster;
  static FreezeFrameFileSystem fs;

  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    conf.setLong("fffs.history.gc.interval", 0);  // passes run when a test asks
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(1).build();
    fs = cluster.getFileSystem();
  }

  @AfterAll
  static void stop() throws Exception {
    if (fs != null) {
      fs.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  static String read(Path path) throws IOException {
    try (InputStream in = fs.open(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static void write(Path path, String text) throws IOException {
    try (FSDataOutputStream out = fs.create(path, true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** A system time strictly after everything done so far, and before anything done next. */
  static long pastMoment() throws IOException {
    HlcTimestamp now = fs.currentTime();
    while (PhysicalClock.system().currentTimeMicros() <= now.physicalMicros() + 1) {
      Thread.onSpinWait();
    }
    return now.physicalMicros();
  }

  static Path at(String path, long micros) {
    return new Path(path + "@s" + micros / 1000 + "." + String.format("%03d", micros % 1000));
  }

  static String history(String... args) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = HistoryCommand.run(cluster.getConfiguration(), args, new PrintStream(out, true,
        StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    String text = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    return "exit " + exit + "\n" + text;
  }

  @Test
  void aPinnedMomentIsReadByNameAndOthersBeyondTheHorizonAreRefused() throws Exception {
    write(new Path("/h/f"), "one");
    long first = pastMoment();
    Pin pin = fs.pin(at("/h", first), "first");
    assertThat(pin.time().micros()).isEqualTo(first);
    write(new Path("/h/f"), "two");
    long second = pastMoment();
    write(new Path("/h/f"), "three");

    fs.setRetention(new Path("/h"), RetentionRule.parse("0s"));
    assertThat(read(new Path("/h/f"))).isEqualTo("three");
    assertThat(read(new Path("/h@pin-first/f"))).isEqualTo("one");
    assertThat(read(new Path("/h/f@pin-first"))).isEqualTo("one");
    FileStatus[] listed = fs.listStatus(new Path("/h@pin-first"));
    assertThat(listed).extracting(s -> s.getPath().toUri().getPath()).containsExactly("/h@pin-first/f");
    assertThatThrownBy(() -> read(at("/h/f", second)))
        .isInstanceOf(FileNotFoundException.class)
        .satisfies(e -> assertThat(((CodedException) e).code()).isEqualTo(ErrorCode.HISTORY_EXPIRED))
        .hasMessageContaining("history horizon").hasMessageContaining("'0s'");
    assertThatThrownBy(() -> read(new Path("/h/f@pin-nosuch"))).isInstanceOf(FileNotFoundException.class)
        .hasMessageContaining("no pin named nosuch");
    assertThatThrownBy(() -> write(new Path("/h/g@pin-first"), "x")).hasMessageContaining("READ_ONLY_PAST");

    // Only what a read may still ask for is listed: the present, current since before the horizon.
    List<FileVersion> versions = fs.listVersions(new Path("/h/f"));
    assertThat(versions).isNotEmpty();
    assertThat(versions.get(versions.size() - 1).length()).isEqualTo(5);
  }

  @Test
  void theHistoryCommandSetsShowsAndPins() throws Exception {
    write(new Path("/cmd/a"), "x");
    assertThat(history("retention", "/cmd", "1h", "1h/1d", "3v")).startsWith("exit 0")
        .contains("keep 1h, 1 moment per 1h within 1d, at least 3 versions");
    assertThat(history("retention", "/cmd/a")).startsWith("exit 0").contains("set on\t/cmd");
    long moment = pastMoment();
    assertThat(history("pin", at("/cmd", moment).toString(), "cmdpin")).startsWith("exit 0").contains("cmdpin");
    assertThat(history("pins", "/cmd")).contains("cmdpin\t/cmd@s");
    assertThat(history("pins", "/elsewhere")).isEqualTo("exit 0\n");
    assertThat(history("unpin", "cmdpin")).startsWith("exit 0");
    assertThat(history("unpin", "cmdpin")).startsWith("exit 1").contains("NOT_FOUND");
    assertThat(history("retention", "/cmd", "1 hour")).startsWith("exit 1").contains("INVALID_ARGUMENT");
    assertThat(history("retention", "/cmd", "inherit")).startsWith("exit 0");
    assertThat(history("frobnicate")).startsWith("exit 2");
  }

  @Test
  void diffAndDuFromTheCommandLine() throws Exception {
    write(new Path("/df/a"), "x");
    long before = pastMoment();
    write(new Path("/df/b"), "yy");
    String from = at("/df", before).toString();
    assertThat(history("diff", from, "/df")).startsWith("exit 1").contains("+\t/df/b").doesNotContain("/df/a");
    assertThat(history("diff", from, from)).isEqualTo("exit 0\n");
    assertThat(history("diff", from, "/other")).startsWith("exit 2");
    assertThat(history("du", "/df")).startsWith("exit 0").contains("2 files").contains("3 bytes");
  }
}
