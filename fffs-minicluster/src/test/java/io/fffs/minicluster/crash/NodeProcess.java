package io.fffs.minicluster.crash;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A NameNode or DataNode running as its own JVM process (the {@code main} that {@code bin/fffs} runs), started on
 * this test's class path, killable with SIGKILL.
 */
final class NodeProcess implements AutoCloseable {
  private final Process process;
  private final List<String> output = new ArrayList<>();

  private NodeProcess(Process process) {
    this.process = process;
  }

  /** Starts {@code mainClass} with {@code -D key=value} options and waits for its {@code READY} line. */
  static NodeProcess start(String mainClass, Path log, String... options) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx512m");
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
    node.awaitReady(mainClass);
    return node;
  }

  private void awaitReady(String mainClass) throws IOException {
    BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8));
    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
      output.add(line);
      if (line.equals("READY")) {
        return;
      }
    }
    throw new IOException(mainClass + " exited before READY (exit " + waitExit() + "): " + output);
  }

  private int waitExit() {
    try {
      return process.waitFor(10, TimeUnit.SECONDS) ? process.exitValue() : -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** kill -9. */
  void kill() throws InterruptedException {
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
