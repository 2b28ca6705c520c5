package io.fffs.minicluster.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.datanode.DataNode;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bind and advertised addresses are separate: the NameNode and a DataNode bind every interface (0.0.0.0) and
 * advertise the names they were given, the NameNode's status shows those names, and clients reach both by them.
 */
class BindAndAdvertiseTest {
  @TempDir
  Path base;

  @Test
  void serversBindEveryInterfaceAndAdvertiseTheirNames() throws Exception {
    Configuration conf = new Configuration();
    conf.set("fffs.namenode.rpc-address", "localhost:0");
    conf.set("fffs.namenode.rpc-bind-host", "0.0.0.0");
    conf.set("fffs.namenode.http-address", "localhost:0");
    conf.set("fffs.namenode.http-bind-host", "0.0.0.0");
    conf.set("fffs.datanode.data-address", "0.0.0.0:0");
    conf.set("fffs.datanode.hostname", "localhost");
    try (MiniFffsCluster cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(1).build()) {
      URI advertised = cluster.getNameNode().uri();
      assertThat(advertised.getHost()).isEqualTo("localhost");
      DataNode dataNode = cluster.getDataNode(0);
      assertThat(dataNode.dataAddress().getAddress().isAnyLocalAddress()).as("bound to 0.0.0.0").isTrue();
      assertThat(dataNode.datanodeId().getHost()).isEqualTo("localhost");
      String status;
      try (InputStream in = URI.create(cluster.getNameNode().httpUri() + "/status").toURL().openStream()) {
        status = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      assertThat(cluster.getNameNode().httpUri().getHost()).isEqualTo("localhost");
      assertThat(status).contains("\"rpcAddress\":\"" + advertised + "\"")
          .contains("\"address\":\"localhost:" + dataNode.dataAddress().getPort() + "\"");

      Configuration client = new Configuration(cluster.getConfiguration());
      try (FreezeFrameFileSystem fs = (FreezeFrameFileSystem) FileSystem.newInstance(advertised, client)) {
        try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path("/advertised"))) {
          out.write("by name".getBytes(StandardCharsets.UTF_8));
        }
      }
      // Every interface: the same NameNode by its loopback address, and the file's bytes through the DataNode.
      URI byAddress = URI.create("fffs://127.0.0.1:" + advertised.getPort());
      try (FileSystem fs = FileSystem.newInstance(byAddress, client);
          InputStream in = fs.open(new org.apache.hadoop.fs.Path("/advertised"))) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("by name");
      }
    }
  }
}
