package io.fffs.bench.child;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A benchmark contender in a JVM of its own, driven over its stdin and stdout by line commands ({@link ChildLoop}
 * is the other end). The child gets this JVM's class path and {@code fffs.home} and {@code log4j.configuration},
 * a heap of its own size, and passes its stderr through; its stdout lines that are not answers are passed on to
 * stderr. Used where both systems of a comparison would otherwise share one JVM — and with it compiled code,
 * heap and the JIT's time (measured: C2 compiling through every phase when the two alternate in one JVM).
 */
public final class ChildJvm implements AutoCloseable {
  private static final long QUIT_WAIT_SECONDS = 60;

  private final String name;
  private final Process process;
  private final PrintStream commands;
  private final BufferedReader answers;

  private ChildJvm(String name, Process process) {
    this.name = name;
    this.process = process;
    this.commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
    this.answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /**
   * Starts {@code mainClass} (whose main runs a {@link ChildLoop}) with {@code args} and {@code -Xmx<heap>} and
   * waits until it says it is ready; {@code name} names it in errors.
   */
  public static ChildJvm start(String name, String heap, Class<?> mainClass, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(
        Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heap,
        "-Djava.awt.headless=true"));
    for (String property : new String[] {"fffs.home", "log4j.configuration"}) {
      if (System.getProperty(property) != null) {
        command.add("-D" + property + "=" + System.getProperty(property));
      }
    }
    // Extra options for every child, e.g. a flight recording: -Dfffs.bench.child-jvm-options="-XX:...".
    String extra = System.getProperty("fffs.bench.child-jvm-options", "").trim();
    if (!extra.isEmpty()) {
      command.addAll(List.of(extra.split("\\s+")));
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    ChildJvm child = new ChildJvm(name, process);
    try {
      child.expect("ready", "starting");
      return child;
    } catch (IOException | RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
  }

  public String name() {
    return name;
  }

  /** Sends one command and returns the words of its answer after {@code ok}. */
  public String[] ask(String command) throws IOException {
    commands.println(command);
    if (commands.checkError()) {
      throw new IOException("the " + name + " child JVM is gone (exit " + exitValue() + "); its errors are above");
    }
    String answer = expect("ok", command).substring(2).trim();
    return answer.isEmpty() ? new String[0] : answer.split(" ");
  }

  /** Reads up to the child's next answer, passing its other lines on; returns the answer if it starts as wanted. */
  private String expect(String wanted, String what) throws IOException {
    for (String line; (line = answers.readLine()) != null; ) {
      if (!line.startsWith(ChildLoop.PREFIX)) {
        System.err.println(line);
        continue;
      }
      String answer = line.substring(ChildLoop.PREFIX.length());
      if (answer.equals(wanted) || answer.startsWith(wanted + " ")) {
        return answer;
      }
      throw new IOException("the " + name + " child JVM failed while " + what + ": " + answer);
    }
    throw new IOException("the " + name + " child JVM ended while " + what + " (exit " + exitValue()
        + "); its errors are above");
  }

  private String exitValue() {
    try {
      return process.waitFor(5, TimeUnit.SECONDS) ? String.valueOf(process.exitValue()) : "still running";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  /** Asks the child to close its side and exit; kills it if it has not within a minute. */
  @Override
  public void close() throws IOException {
    commands.println("quit");
    commands.close();
    Thread drain = new Thread(() -> {
      try {
        for (String line; (line = answers.readLine()) != null; ) {
          System.err.println(line);
        }
      } catch (IOException e) {
        // The child is gone; nothing more to pass on.
      }
    }, "child-" + name + "-stdout");
    drain.setDaemon(true);
    drain.start();
    try {
      if (!process.waitFor(QUIT_WAIT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("the " + name + " child JVM did not stop within " + QUIT_WAIT_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (process.exitValue() != 0) {
      throw new IOException("the " + name + " child JVM exited with " + process.exitValue());
    }
  }
}
