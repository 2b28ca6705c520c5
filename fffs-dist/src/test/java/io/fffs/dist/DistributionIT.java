package io.fffs.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tarball works on its own: unpacked into an empty directory, {@code bin/fffs minicluster} starts from its
 * {@code lib/} and {@code etc/fffs/}, and {@code bin/fffs dfs} talks to it.
 */
class DistributionIT {
  @TempDir
  Path work;

  private static Path tarball() throws IOException {
    try (DirectoryStream<Path> found = Files.newDirectoryStream(Paths.get("target"), "fffs-*.tar.gz")) {
      for (Path path : found) {
        return path;
      }
    }
    throw new IllegalStateException("no fffs-*.tar.gz in target/: the package phase builds it");
  }

  private static String run(Path home, String... args) throws Exception {
    String[] command = new String[args.length + 1];
    command[0] = home.resolve("bin/fffs").toString();
    System.arraycopy(args, 0, command, 1, args.length);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    return output;
  }

  @Test
  void unpackedTarballRunsMiniclusterAndShell() throws Exception {
    Process untar = new ProcessBuilder("tar", "xzf", tarball().toAbsolutePath().toString(), "-C", work.toString())
        .inheritIO().start();
    assertThat(untar.waitFor(60, TimeUnit.SECONDS)).isTrue();
    Path home;
    try (DirectoryStream<Path> unpacked = Files.newDirectoryStream(work, "fffs-*")) {
      home = unpacked.iterator().next();
    }
    assertThat(home.resolve("bin/fffs")).isExecutable();
    assertThat(home.resolve("etc/fffs/fffs-site.xml")).exists();
    assertThat(home.resolve("lib")).isDirectory();

    Process cluster = new ProcessBuilder(home.resolve("bin/fffs").toString(), "minicluster", "--port", "0",
        "--http-port", "0", "--webhdfs-port", "0", "--dir", work.resolve("data").toString()).redirectErrorStream(true).start();
    String memory = null;
    try {
      String defaultFs = null;
      String webHdfs = null;
      BufferedReader lines = new BufferedReader(new InputStreamReader(cluster.getInputStream(),
          StandardCharsets.UTF_8));
      StringBuilder seen = new StringBuilder();
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        seen.append(line).append('\n');
        if (line.startsWith("fs.defaultFS=")) {
          defaultFs = line.substring("fs.defaultFS=".length());
        }
        if (line.startsWith("webhdfs=")) {
          webHdfs = line.substring("webhdfs=".length());
        }
        if (line.startsWith("memory=")) {
          memory = line.substring("memory=".length());
        }
        if (line.equals("READY")) {
          break;
        }
      }
      assertThat(defaultFs).as(seen.toString()).startsWith("fffs://127.0.0.1:");
      run(home, "dfs", "-D", "fs.defaultFS=" + defaultFs, "-mkdir", "-p", "/from-tarball/dir");
      assertThat(run(home, "dfs", "-D", "fs.defaultFS=" + defaultFs, "-ls", "/from-tarball"))
          .contains("/from-tarball/dir");
      assertThat(webHdfs).as(seen.toString()).startsWith("http://127.0.0.1:").endsWith("/webhdfs/v1/");
      java.net.HttpURLConnection listing = (java.net.HttpURLConnection) java.net.URI.create(webHdfs
          + "from-tarball?op=LISTSTATUS").toURL().openConnection();
      assertThat(listing.getResponseCode()).isEqualTo(200);
      try (java.io.InputStream body = listing.getInputStream()) {
        assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).contains("\"pathSuffix\":\"dir\"");
      }
    } finally {
      cluster.destroy();
      assertThat(cluster.waitFor(60, TimeUnit.SECONDS)).as("minicluster stops on SIGTERM").isTrue();
    }
    assertThat(memory).as("the minicluster names its arena directory").isNotNull();
    assertThat(java.nio.file.Paths.get(memory)).as("the arena directory is removed on stop").doesNotExist();
  }
}
