package io.fffs.minicluster.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Python's own WebHDFS clients against the gateways of a real cluster: fsspec, HdfsCLI ({@code hdfs}) and pandas
 * reading a Parquet table as of a past time, in the virtual environment {@code dev-support/python-venv.sh} makes
 * (its interpreter is the {@code fffs.python} property). The script checks what the clients see; this test also
 * checks what they wrote through the {@code fffs://} client.
 */
class PythonClientsTest {
  private static final String SCRIPT = "python/webhdfs_clients.py";

  @TempDir
  Path base;

  @Test
  void fsspecHdfsCliAndPandasListReadWriteAndReadThePast() throws Exception {
    Path python = Paths.get(System.getProperty("fffs.python",
        System.getProperty("user.home") + "/.cache/fffs/venv/bin/python"));
    assertThat(python).as("the Python environment of dev-support/python-venv.sh").isExecutable();
    Path script = base.resolve("webhdfs_clients.py");
    try (InputStream in = getClass().getClassLoader().getResourceAsStream(SCRIPT)) {
      Files.copy(in, script);
    }
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base.resolve("cluster")).numDataNodes(2)
        .webHdfs().build(); FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      fs.setPermission(new org.apache.hadoop.fs.Path("/"), new FsPermission((short) 0777));
      URI gateway = cluster.getWebHdfsURI();
      Path log = base.resolve("python.log");
      Process process = new ProcessBuilder(python.toString(), script.toString(), gateway.getHost(),
          String.valueOf(gateway.getPort()), "alice").redirectErrorStream(true).redirectOutput(log.toFile())
          .start();
      boolean exited = process.waitFor(240, TimeUnit.SECONDS);
      if (!exited) {
        process.destroyForcibly().waitFor();
      }
      String output = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(exited).as(output).isTrue();
      assertThat(output).contains("ok fsspec", "ok hdfscli", "ok pandas", "python: 3 passed, 0 failed");
      assertThat(process.exitValue()).as(output).isZero();

      assertThat(read(fs, "/py/fsspec/log.txt")).isEqualTo("reading 1\nreading 2\n");
      assertThat(read(fs, "/py/hdfscli/data.csv")).isEqualTo("a,b\n1,2\n3,4\n");
      FileStatus[] table = fs.listStatus(new org.apache.hadoop.fs.Path("/py/table"));
      assertThat(table).extracting(s -> s.getPath().getName()).containsExactly("part-0.parquet", "part-1.parquet");
      assertThat(table).allSatisfy(s -> assertThat(s.getOwner()).isEqualTo("alice"));
    }
  }

  private static String read(FreezeFrameFileSystem fs, String path) throws Exception {
    try (FSDataInputStream in = fs.open(new org.apache.hadoop.fs.Path(path))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
