package io.fffs.bench.metadata;

import io.fffs.bench.BenchLogging;
import io.fffs.bench.metadata.ThroughputRunner.Measurement;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;

/**
 * The main class of a {@link ChildSide}'s JVM: {@code SideMain FFFS|HDFS CLIENTS BASE_DIR} starts a
 * {@link LocalSide} and serves its parent's commands, one line each on stdin, answering each with one line on
 * stdout that starts with {@link #PREFIX} (any other stdout line is the cluster's and passed on):
 * <pre>
 *   prepare                          → ok
 *   run OP THREADS NANOS             → ok OPS NANOS       (OP a {@link MetadataSide.Measured} name)
 *   quit, or the end of stdin        → the side is closed and the JVM exits
 *   any failure                      → error MESSAGE
 * </pre>
 * The first line, once the cluster is up, is {@code ready}.
 */
public final class SideMain {
  static final String PREFIX = "@@metabench ";

  private SideMain() {}

  public static void main(String[] args) throws Exception {
    BenchLogging.quiet();
    PrintStream out = System.out;
    int status = 0;
    try (LocalSide side = LocalSide.start(args[0], Integer.parseInt(args[1]), Paths.get(args[2]));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      out.println(PREFIX + "ready");
      out.flush();
      for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
        out.println(PREFIX + serve(side, line.trim().split(" ")));
        out.flush();
      }
    } catch (Exception | LinkageError e) {
      e.printStackTrace();
      out.println(PREFIX + "error " + oneLine(e));
      status = 1;
    }
    out.flush();
    // A cluster can leave non-daemon threads behind.
    System.exit(status);
  }

  private static String serve(LocalSide side, String[] command) {
    try {
      switch (command[0]) {
        case "prepare" -> {
          side.prepare();
          return "ok";
        }
        case "run" -> {
          Measurement m = side.run(MetadataSide.Measured.valueOf(command[1]), Integer.parseInt(command[2]),
              Long.parseLong(command[3]));
          return "ok " + m.ops() + " " + m.nanos();
        }
        default -> {
          return "error unknown command " + command[0];
        }
      }
    } catch (Exception e) {
      e.printStackTrace();
      return "error " + oneLine(e);
    }
  }

  private static String oneLine(Throwable e) {
    return String.valueOf(e).replace('\n', ' ');
  }
}
