package io.fffs.minicluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A NameNode or DataNode running as its own JVM process (the {@code main} that {@code bin/fffs} runs), started on
 * this JVM's class path: for crash tests (killable with SIGKILL) and for benchmarks that need nodes in their own
 * processes. Its stderr goes to a log file; its stdout lines up to {@code READY} are kept ({@link #output()}).
 */
public final class NodeProcess implements AutoCloseable {
  private static final long CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux
  private final Process process;
  private final List<String> output = new ArrayList<>();

  private NodeProcess(Process process) {
    this.process = process;
  }

  /** Starts {@code mainClass} with a 512 MiB heap and {@code -D key=value} options; waits for {@code READY}. */
  public static NodeProcess start(String mainClass, Path log, String... options) throws IOException {
    return start(mainClass, "-Xmx512m", log, options);
  }

  /** Starts {@code mainClass} with {@code heap} ({@code -Xmx...}) and {@code -D} options; waits for READY. */
  public static NodeProcess start(String mainClass, String heap, Path log, String... options) throws IOException {
    return start(mainClass, List.of(heap), log, options);
  }

  /** Starts {@code mainClass} with JVM options ({@code -Xmx...}, system properties) and {@code -D} options. */
  public static NodeProcess start(String mainClass, List<String> jvmOptions, Path log, String... options)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass);
    for (String option : options) {
      command.add("-D");
      command.add(option);
    }
    Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
    NodeProcess node = new NodeProcess(process);
    node.awaitReady(mainClass, log);
    return node;
  }

  private void awaitReady(String mainClass, Path log) throws IOException {
    BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8));
    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
      output.add(line);
      if (line.equals("READY")) {
        drain(lines, log);
        return;
      }
    }
    throw new IOException(mainClass + " exited before READY (exit " + waitExit() + "): " + output
        + "; the end of its log " + log + ":\n" + tail(log, 6));
  }

  /**
   * The last {@code n} lines of {@code log} other than stack frames: where a node that could not start says why
   * (e.g. {@code BindException} for a port another process took).
   */
  private static String tail(Path log, int n) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8).stream()
          .filter(line -> !line.startsWith("\tat ") && !line.startsWith("\t..."))
          .toList();
      return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    } catch (IOException | java.io.UncheckedIOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  /** Copies what the process prints after READY to its log, so that a full pipe never stops it. */
  private static void drain(BufferedReader lines, Path log) {
    Thread drainer = new Thread(() -> {
      try (java.io.Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND)) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          out.write(line);
          out.write('\n');
          out.flush();
        }
      } catch (IOException e) {
        // the process ended or the log is gone: nothing more to keep
      }
    }, "node-process-stdout");
    drainer.setDaemon(true);
    drainer.start();
  }

  /** What the process printed up to READY (e.g. {@code data=host:port}, {@code id=uuid}). */
  public List<String> output() {
    return List.copyOf(output);
  }

  /**
   * Waits until the process has used less than {@code busyFraction} of one core over a whole {@code windowMillis}
   * (e.g. a DataNode done pre-touching its arena), at most {@code timeoutMillis}; false on timeout. Linux only:
   * reads {@code /proc/<pid>/stat}.
   */
  public boolean awaitIdle(double busyFraction, long windowMillis, long timeoutMillis) throws IOException {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
    long before = cpuTicks();
    while (System.nanoTime() < deadline) {
      sleep(windowMillis);
      long after = cpuTicks();
      double used = (after - before) / (double) CLOCK_TICKS_PER_SECOND / (windowMillis / 1000.0);
      if (used < busyFraction) {
        return true;
      }
      before = after;
    }
    return false;
  }

  /** utime + stime of the process, in clock ticks. */
  private long cpuTicks() throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
    // Fields after the command name (which may hold spaces) start after the last ')'.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // fields 14 and 15 of proc(5)
  }

  private static void sleep(long millis) throws IOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private int waitExit() {
    try {
      return process.waitFor(10, TimeUnit.SECONDS) ? process.exitValue() : -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /**
   * SIGSTOP: the process answers nothing while its kernel still accepts connections and bytes, as a node whose
   * network stalls looks to its peers. {@link #kill} ends it as it is; {@link #resume} lets it go on.
   */
  public void suspend() throws IOException {
    signal("STOP");
  }

  /** SIGCONT, after {@link #suspend}. */
  public void resume() throws IOException {
    signal("CONT");
  }

  private void signal(String name) throws IOException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    try {
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IOException("kill -" + name + " " + process.pid() + " failed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** kill -9. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM, then SIGKILL if it does not stop within 30 s. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        kill();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
