package io.fffs.minicluster.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.tools.AdminCommand;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/fffs admin}: report, topology, safe mode, checkpoint and host files, with dfsadmin's exit codes. */
class AdminCommandTest {
  @TempDir
  Path base;

  private record Run(int exit, String out, String err) {}

  private static Run admin(Configuration conf, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = AdminCommand.run(conf, args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void reportSafeModeCheckpointAndHostFiles() throws Exception {
    Path exclude = base.resolve("exclude");
    Files.writeString(exclude, "# no one yet\n");
    Configuration conf = new Configuration();
    conf.set("fffs.namenode.hosts.exclude", exclude.toString());
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base.resolve("cluster")).conf(conf)
        .numDataNodes(2).build()) {
      Configuration client = new Configuration(cluster.getConfiguration());
      client.set("fs.defaultFS", cluster.getURI().toString());

      Run report = admin(client, "-report");
      assertThat(report.exit()).as(report.err()).isZero();
      assertThat(report.out()).contains("Live datanodes (2):").contains("Dead datanodes (0):")
          .contains("Name: " + cluster.getDataNode(0).datanodeId().getHost() + ":"
              + cluster.getDataNode(0).dataAddress().getPort())
          .contains("Transport: tcp").contains("Arena capacity: ").contains("Durable frontier: ")
          .contains("Clock offset: ").contains("Health: healthy").doesNotContain("UNHEALTHY");
      assertThat(admin(client, "-printTopology").out()).startsWith("Rack: /default-rack")
          .contains(cluster.getDataNode(1).uuid());

      assertThat(admin(client, "-safemode", "enter").out()).startsWith("Safe mode is ON");
      assertThat(admin(client, "-safemode", "get").out()).startsWith("Safe mode is ON");
      try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
        assertThatThrownBy(() -> fs.mkdirs(new org.apache.hadoop.fs.Path("/refused")))
            .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SAFE_MODE));
      }
      // Only the superuser changes safe mode or checkpoints.
      Run stranger = UserGroupInformation.createRemoteUser("mallory").doAs(
          (PrivilegedExceptionAction<Run>) () -> admin(client, "-safemode", "leave"));
      assertThat(stranger.exit()).isEqualTo(255);
      assertThat(stranger.err()).contains("ACCESS_DENIED");
      assertThat(admin(client, "-safemode", "leave").out()).startsWith("Safe mode is OFF");
      assertThat(admin(client, "-safemode", "wait").exit()).isZero();

      try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
        fs.mkdirs(new org.apache.hadoop.fs.Path("/checkpointed"));
      }
      Run checkpoint = admin(client, "-checkpoint");
      assertThat(checkpoint.exit()).as(checkpoint.err()).isZero();
      String image = checkpoint.out().replaceAll("(?s).*image (\\S+).*", "$1");
      assertThat(Path.of(image)).exists();

      // Excluding the DataNodes' host drops them and refuses them when they register again.
      Files.writeString(exclude, cluster.getDataNode(0).datanodeId().getHost() + "\n");
      Run refreshed = admin(client, "-refreshNodes");
      assertThat(refreshed.exit()).as(refreshed.err()).isZero();
      assertThat(refreshed.out()).contains("exclude file lists").contains("dropped DataNode");
      cluster.getDataNode(0).triggerHeartbeat();
      assertThat(admin(client, "-report").out()).contains("Live datanodes (0):");
      Files.writeString(exclude, "");
      assertThat(admin(client, "-refreshNodes").exit()).isZero();
      cluster.awaitDataNodes(2);
      assertThat(admin(client, "-report").out()).contains("Live datanodes (2):");

      assertThat(admin(client, "-bogus").exit()).isEqualTo(255);
      assertThat(admin(client, "-safemode", "sideways").exit()).isEqualTo(255);
    }
  }
}
