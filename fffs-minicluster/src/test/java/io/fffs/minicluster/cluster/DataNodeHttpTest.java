package io.fffs.minicluster.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.datanode.DataNode;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DataNode's HTTP server: /status (JSON), /jmx, /prom, /conf with secrets redacted, /logs; the NameNode's status
 * names each DataNode's page at its advertised host.
 */
class DataNodeHttpTest {
  @TempDir
  Path base;

  private static String get(String url) throws IOException {
    HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
    assertThat(connection.getResponseCode()).as(url).isEqualTo(200);
    try (InputStream in = connection.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void statusMetricsConfigurationAndTheNameNodesLink() throws Exception {
    Configuration conf = new Configuration();
    conf.set("fs.s3a.secret.key", "do-not-show-me");
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(1).build()) {
      DataNode dataNode = cluster.getDataNode(0);
      try (FreezeFrameFileSystem fs = cluster.getFileSystem();
          FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path("/http/f"))) {
        out.write(new byte[10_000]);
      }
      int port = dataNode.datanodeId().getHttpPort();
      assertThat(port).isEqualTo(dataNode.httpAddress().getPort()).isPositive();
      String page = "http://" + dataNode.datanodeId().getHost() + ":" + port;

      String status = get(page + "/status");
      assertThat(status).contains("\"id\":\"" + dataNode.uuid() + "\"").contains("\"registered\":true")
          .contains("\"healthy\":true").contains("\"httpPort\":" + port).contains("\"writeBytes\":10000")
          .contains("\"clockOffsetMicros\":").contains("\"entriesDurable\":").contains("\"fsyncs\":");
      assertThat(get(page + "/prom")).contains("# TYPE fffs_datanode_healthy gauge")
          .contains("fffs_datanode_healthy{datanode=\"" + dataNode.uuid() + "\"")
          .contains("fffs_datanode_write_bytes_total{");
      assertThat(get(page + "/jmx?qry=java.lang:type=Memory")).contains("\"name\":\"java.lang:type=Memory\"")
          .contains("\"HeapMemoryUsage\":{");
      String configuration = get(page + "/conf");
      assertThat(configuration).contains("\"fffs.datanode.data.dir\":").contains("\"fs.s3a.secret.key\":")
          .doesNotContain("do-not-show-me");
      HttpURLConnection escape = (HttpURLConnection) URI.create(page + "/logs/..%2F..%2Fetc%2Fpasswd").toURL()
          .openConnection();
      assertThat(escape.getResponseCode()).isEqualTo(404);
      assertThat(get(page + "/")).contains("/status").contains("/logs/");

      String nameNode = get(cluster.getNameNode().httpUri() + "/status");
      assertThat(nameNode).contains("\"httpAddress\":\"" + dataNode.datanodeId().getHost() + ":" + port + "\"");
    }
  }
}
