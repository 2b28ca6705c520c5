package io.fffs.dist;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The tarball the package phase built, unpacked into a directory, and its {@code bin/fffs} run as a user runs it. */
final class Tarball {
  private Tarball() {}

  /** Unpacks {@code target/fffs-*.tar.gz} into {@code into}; returns the unpacked home. */
  static Path unpack(Path into) throws IOException, InterruptedException {
    Path tarball = null;
    try (DirectoryStream<Path> found = Files.newDirectoryStream(Paths.get("target"), "fffs-*.tar.gz")) {
      for (Path path : found) {
        tarball = path.toAbsolutePath();
      }
    }
    if (tarball == null) {
      throw new IllegalStateException("no fffs-*.tar.gz in target/: the package phase builds it");
    }
    Process untar = new ProcessBuilder("tar", "xzf", tarball.toString(), "-C", into.toString()).inheritIO().start();
    if (!untar.waitFor(60, TimeUnit.SECONDS) || untar.exitValue() != 0) {
      throw new IOException("tar xzf " + tarball + " failed");
    }
    try (DirectoryStream<Path> unpacked = Files.newDirectoryStream(into, "fffs-*")) {
      return unpacked.iterator().next();
    }
  }

  /** What a command printed (stdout and stderr together) and its exit code. */
  record Result(int exit, String output) {}

  /** Runs {@code prefix... home/bin/fffs args...} with {@code env} added, waiting at most {@code seconds}. */
  static Result run(Path home, Map<String, String> env, List<String> prefix, long seconds, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(prefix);
    command.add(home.resolve("bin/fffs").toString());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(env);
    Path output = Files.createTempFile("fffs-command", ".out");
    try {
      // To a file, not a pipe: a daemon started by the command inherits no pipe that would keep this waiting.
      Process process = builder.redirectOutput(output.toFile()).start();
      if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException(command + " did not finish in " + seconds + " s: "
            + Files.readString(output, StandardCharsets.UTF_8));
      }
      return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(output);
    }
  }
}
