package io.fffs.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.minicluster.contract.temporal.AbstractTemporalReadContractTest;
import io.fffs.minicluster.contract.temporal.FffsRandomWriteContract;
import io.fffs.minicluster.contract.temporal.FffsTemporalContracts;
import io.fffs.plugins.Ts64UserTimeExtractor;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The temporal read and random-write contract suites against FFFS on several hosts: a NameNode and three DataNodes,
 * each in its own network namespace with its own address, started with {@code bin/fffs --daemon} from the unpacked
 * tarball; the suites and a Spark job run from the host namespace at replication 3. Runs when this machine allows
 * network namespaces (root and {@code ip netns}), else is skipped saying why.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiHostContractIT {
  private static final int DATANODES = 3;
  /** ts64 records of 16 bytes: an 8-byte user time, then 8 bytes of payload. */
  private static final int RECORD = 16;

  private java.nio.file.Path work;
  private NetnsCluster cluster;
  private FileSystem fs;

  @BeforeAll
  void startCluster(@TempDir java.nio.file.Path dir) throws Exception {
    work = dir;
    String unavailable = NetnsCluster.unavailableReason();
    assumeTrue(unavailable == null, () -> "multi-host contract suites skipped: " + unavailable);
    cluster = NetnsCluster.create(Tarball.unpack(work), work.resolve("nodes"), DATANODES);
    for (int node = 0; node <= DATANODES; node++) {
      start(node);
    }
    cluster.admin("-safemode", "wait");
    fs = FileSystem.get(URI.create(cluster.nameNodeUri()), configuration());
  }

  private Configuration configuration() {
    Configuration conf = new Configuration();
    conf.set("fs.defaultFS", cluster.nameNodeUri());
    conf.set("fffs.client.connect.timeout", "5s");
    conf.setBoolean("fs.fffs.impl.disable.cache", true);
    return conf;
  }

  private void start(int node) throws Exception {
    Tarball.Result started = cluster.daemon(node, "start");
    assertThat(started.exit()).as(started.output()).isZero();
  }

  @AfterAll
  void stopCluster() throws IOException {
    try {
      if (fs != null) {
        fs.close();
      }
    } finally {
      if (cluster != null) {
        cluster.close();
      }
    }
  }

  /**
   * A Spark {@code local[2]} job ({@code io.fffs.spark.AsOfJob}, in a JVM of its own with fffs-spark's test class
   * path) writes a Parquet table on the cluster, overwrites it and reads it as of a moment between the two.
   */
  @Test
  void aSparkJobReadsATableAsOfAPastTime() throws Exception {
    java.nio.file.Path spark = java.nio.file.Path.of("..", "fffs-spark", "target").toAbsolutePath().normalize();
    java.nio.file.Path classpath = spark.resolve("spark-job.classpath");
    java.nio.file.Path options = spark.resolve("test-classes/spark-job.options");
    assertThat(classpath).as("fffs-spark's test class path: build fffs-spark's tests first (its test-compile"
        + " phase writes it)").isRegularFile();
    List<String> command = new ArrayList<>(List.of(
        java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx768m"));
    command.addAll(Arrays.asList(Files.readString(options).trim().split("\\s+")));
    command.addAll(List.of("-cp", spark.resolve("test-classes") + java.io.File.pathSeparator
        + Files.readString(classpath).trim(), "io.fffs.spark.AsOfJob", cluster.nameNodeUri(), "/spark/table"));
    java.nio.file.Path log = work.resolve("spark-job.log");
    ProcessBuilder job = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    job.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    Process process = job.start();
    boolean ended = process.waitFor(5, TimeUnit.MINUTES);
    if (!ended) {
      process.destroyForcibly().waitFor();
    }
    String output = Files.readString(log);
    assertThat(ended).as("the job ended within 5 minutes: %s", output).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    assertThat(output).contains("HELD as of the first write: 100 rows").contains("HELD now: 50 rows");
  }

  @Nested
  class TemporalRead extends AbstractTemporalReadContractTest {
    TemporalRead() {
      super(() -> MultiHostContractIT.this.fs);
    }

    @Override
    protected long momentBetweenChanges() throws IOException {
      return FffsTemporalContracts.momentBetweenChanges((FreezeFrameFileSystem) fs);
    }

    /** The NameNode and one DataNode stopped and started again with the daemon commands. */
    @Override
    protected void restartCluster() throws IOException {
      try {
        for (int node : new int[] {0, 1}) {
          assertThat(cluster.daemon(node, "stop").exit()).isZero();
          start(node);
        }
        cluster.admin("-safemode", "wait");
      } catch (IOException e) {
        throw e;
      } catch (Exception e) {
        throw new IOException("restarting the cluster failed", e);
      }
    }

    @Override
    protected FileSystem userTimeFileSystem() throws IOException {
      Configuration conf = configuration();
      conf.set("fffs.usertime.plugin", Ts64UserTimeExtractor.NAME + ":fixed=" + RECORD);
      return FileSystem.newInstance(URI.create(cluster.nameNodeUri()), conf);
    }

    @Override
    protected byte[] userTimeRecord(long micros, byte payload) {
      ByteBuffer record = ByteBuffer.allocate(RECORD).putLong(micros);
      while (record.hasRemaining()) {
        record.put(payload);
      }
      return record.array();
    }
  }

  @Nested
  class RandomWrite extends FffsRandomWriteContract {
    RandomWrite() {
      super(() -> MultiHostContractIT.this.fs);
    }
  }
}
