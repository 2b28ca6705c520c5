package io.fffs.bench.child;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * The child's end of a {@link ChildJvm}: serves its parent's commands, one line each on stdin, answering each with
 * one line on stdout that starts with {@link #PREFIX} (any other stdout line is passed on by the parent):
 * <pre>
 *   first line, once the side is up   → ready
 *   COMMAND ARGS…                      → ok RESULT…  or  error MESSAGE
 *   quit, or the end of stdin          → the side is closed and the JVM exits
 * </pre>
 */
public final class ChildLoop {
  static final String PREFIX = "@@child ";

  /** A side serving commands: the answer's words after {@code ok} (empty for none). */
  public interface Side extends AutoCloseable {
    String serve(String[] command) throws Exception;
  }

  /** Opens a side. */
  @FunctionalInterface
  public interface Opener {
    Side open() throws Exception;
  }

  private ChildLoop() {}

  /** Opens the side, serves commands until {@code quit}, closes it and exits the JVM (0, or 1 after a failure). */
  public static void run(Opener opener) {
    PrintStream out = System.out;
    int status = 0;
    try (Side side = opener.open();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      out.println(PREFIX + "ready");
      out.flush();
      for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
        out.println(PREFIX + answer(side, line.trim().split(" ")));
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

  private static String answer(Side side, String[] command) {
    try {
      String result = side.serve(command);
      return result.isEmpty() ? "ok" : "ok " + result;
    } catch (Exception e) {
      e.printStackTrace();
      return "error " + oneLine(e);
    }
  }

  private static String oneLine(Throwable e) {
    return String.valueOf(e).replace('\n', ' ');
  }
}
