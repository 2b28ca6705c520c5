package io.fffs.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client jars on the class path Spark ships Hadoop in: {@code hadoop-client-api} and
 * {@code hadoop-client-runtime} (third-party code relocated, protobuf as {@code org.apache.hadoop.thirdparty.protobuf}),
 * no unshaded {@code hadoop-common}. The class path is fffs-client's runtime closure plus the two shaded jars, as
 * Maven resolves them ({@code dependency:build-classpath} in this module's pom, written to the file named by
 * {@code fffs.shaded.classpath}); a child JVM on it writes, reads back and reads past states of a file on a
 * {@link MiniFffsCluster} this JVM runs.
 */
class ShadedHadoopClientTest {
  private static final String DIR = "/shaded-client";

  @TempDir
  Path tmp;

  @Test
  void theClientJarsWriteAndReadThePastOnHadoopsShadedClientJars() throws Exception {
    List<String> classPath = shadedClassPath();
    List<String> jarNames = classPath.stream().map(entry -> new File(entry).getName()).toList();
    String hadoop = System.getProperty("fffs.hadoop.version");
    assertThat(jarNames).contains("hadoop-client-api-" + hadoop + ".jar", "hadoop-client-runtime-" + hadoop + ".jar");
    assertThat(jarNames).filteredOn(name -> name.startsWith("hadoop-"))
        .as("only the shaded Hadoop jars").hasSize(2);
    assertThat(classPath).anyMatch(entry -> entry.contains("fffs-client"))
        .anyMatch(entry -> entry.contains("fffs-common"))
        .noneMatch(entry -> entry.contains("fffs-namenode") || entry.contains("fffs-datanode"));

    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(tmp.resolve("cluster")).numDataNodes(1)
        .build()) {
      Map<String, String> out = runChild(classPath, cluster.getURI().toString());

      assertThat(out).containsEntry("filesystem", FreezeFrameFileSystem.class.getName())
          .containsEntry("latest", "1,first;2,second;")
          .containsEntry("after-first", "1,first;")
          .containsEntry("before-create-exists", "false");
      assertThat(out.get("hadoop-api-jar")).endsWith("/hadoop-client-api-" + hadoop + ".jar");
      assertThat(out.get("protobuf-jar")).endsWith("/hadoop-client-runtime-" + hadoop + ".jar");
      // The child's writes are the cluster's: this JVM's unshaded client reads the same bytes.
      try (FreezeFrameFileSystem fs = cluster.getFileSystem();
          InputStream in = fs.open(new org.apache.hadoop.fs.Path(DIR + "/table.csv"))) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("1,first\n2,second\n");
      }
    }
  }

  /** The entries of the class path Maven wrote, which must exist. */
  private static List<String> shadedClassPath() throws Exception {
    Path file = Path.of(System.getProperty("fffs.shaded.classpath"));
    List<String> entries = Arrays.stream(Files.readString(file).trim().split(File.pathSeparator))
        .filter(entry -> !entry.isEmpty()).toList();
    assertThat(entries).allMatch(entry -> Files.exists(Path.of(entry)), "exists");
    return entries;
  }

  /** Runs {@link ShadedClientRun} on the shaded class path plus this module's test classes; its printed pairs. */
  private Map<String, String> runChild(List<String> classPath, String clusterUri) throws Exception {
    List<String> entries = new ArrayList<>(classPath);
    entries.add(Path.of(ShadedClientRun.class.getProtectionDomain().getCodeSource().getLocation().toURI())
        .toString());
    Path stdout = tmp.resolve("child.out");
    Path stderr = tmp.resolve("child.err");
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-cp", String.join(File.pathSeparator, entries), ShadedClientRun.class.getName(), clusterUri,
        DIR)
        .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
    try {
      boolean exited = child.waitFor(120, TimeUnit.SECONDS);
      assertThat(exited).as("child exited within 120 s; stderr:%n%s", Files.readString(stderr)).isTrue();
    } finally {
      child.destroyForcibly();
    }
    assertThat(child.exitValue()).as("child exit code; stderr:%n%s", Files.readString(stderr)).isZero();
    Map<String, String> pairs = new LinkedHashMap<>();
    for (String line : Files.readAllLines(stdout)) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        pairs.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return pairs;
  }
}
