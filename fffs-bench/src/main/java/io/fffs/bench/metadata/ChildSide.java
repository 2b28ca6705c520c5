package io.fffs.bench.metadata;

import io.fffs.bench.metadata.ThroughputRunner.Measurement;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A contender in a JVM of its own ({@link SideMain}), driven over its stdin and stdout. The child gets the same
 * class path, {@code -Xmx2g}, and this JVM's {@code fffs.home} and {@code log4j.configuration}; its stderr is
 * passed through.
 */
final class ChildSide implements MetadataSide {
  private static final long QUIT_WAIT_SECONDS = 60;

  private final String name;
  private final Process process;
  private final PrintStream commands;
  private final BufferedReader answers;

  private ChildSide(String name, Process process) {
    this.name = name;
    this.process = process;
    this.commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
    this.answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /** Starts the child JVM of side {@code name} and waits until its cluster is up. */
  static ChildSide start(String name, int clients, Path baseDir) throws IOException {
    List<String> command = new ArrayList<>(List.of(
        Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx2g",
        "-Djava.awt.headless=true"));
    for (String property : new String[] {"fffs.home", "log4j.configuration"}) {
      if (System.getProperty(property) != null) {
        command.add("-D" + property + "=" + System.getProperty(property));
      }
    }
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), SideMain.class.getName(), name,
        String.valueOf(clients), baseDir.toString()));
    Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    ChildSide side = new ChildSide(name, process);
    try {
      side.expect("ready", "starting");
      return side;
    } catch (IOException | RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void prepare() throws IOException {
    ask("prepare");
  }

  @Override
  public Measurement run(Measured op, int threads, long nanos) throws IOException {
    String[] answer = ask("run " + op.name() + " " + threads + " " + nanos).split(" ");
    if (answer.length != 3) {
      throw new IOException(name + " child answered '" + String.join(" ", answer) + "' to run " + op);
    }
    return new Measurement(Long.parseLong(answer[1]), Long.parseLong(answer[2]));
  }

  private String ask(String command) throws IOException {
    commands.println(command);
    if (commands.checkError()) {
      throw new IOException("the " + name + " child JVM is gone (exit " + exitValue() + "); its errors are above");
    }
    return expect("ok", command);
  }

  /** Reads up to the child's next answer, passing its other lines on; returns the answer if it starts as wanted. */
  private String expect(String wanted, String what) throws IOException {
    for (String line; (line = answers.readLine()) != null; ) {
      if (!line.startsWith(SideMain.PREFIX)) {
        System.err.println(line);
        continue;
      }
      String answer = line.substring(SideMain.PREFIX.length());
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

  /** Asks the child to stop its cluster and exit; kills it if it has not within a minute. */
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
    }, "metabench-" + name + "-stdout");
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
