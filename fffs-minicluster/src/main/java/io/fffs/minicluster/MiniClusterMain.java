package io.fffs.minicluster;

import io.fffs.common.conf.GenericArgs;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.conf.Configuration;

/**
 * {@code bin/fffs minicluster [--datanodes N] [--dir DIR] [--port P] [--http-port H] [--webhdfs-port W]
 * [--no-webhdfs] [-D key=value]...}: the embedded default, WebHDFS gateways included (port 0: a free one). Keeps its state in DIR
 * (default {@code ./fffs-data}) so a restart shows the same history; prints {@code fs.defaultFS=…}, {@code http=…},
 * {@code webhdfs=…} and {@code READY}; stops cleanly on SIGINT/SIGTERM.
 */
public final class MiniClusterMain {
  static final String USAGE = String.join("\n",
      "usage: bin/fffs minicluster [--datanodes N] [--dir DIR] [--port P] [--http-port H] [--webhdfs-port W]"
          + " [--no-webhdfs] [-D key=value]...",
      "  --datanodes N     DataNodes in the JVM (default 1)",
      "  --dir DIR         state directory (default ./fffs-data)",
      "  --namenodes N     NameNodes: 1 (default), or 3 for a highly available cluster fffs://mycluster whose",
      "                    NameNodes use ports P, P+1, P+2 (RPC) and H, H+1, H+2 (HTTP); see docs/ha.md",
      "  --port P          NameNode RPC port (default 8020; 0: a free one)",
      "  --http-port H     NameNode HTTP port (default 9870)",
      "  --webhdfs-port W  WebHDFS gateway port (default 9860)",
      "  --no-webhdfs      no WebHDFS gateways",
      "  " + GenericArgs.USAGE);

  private MiniClusterMain() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.addResource("fffs-site.xml");
    String[] rest = GenericArgs.applyOrExit(conf, args, "minicluster", USAGE, 2);
    int datanodes = 1;
    int namenodes = 1;
    Path dir = Paths.get("fffs-data");
    int port = 8020;
    int httpPort = 9870;
    int webHdfsPort = 9860;
    boolean webHdfs = true;
    for (int i = 0; i < rest.length; i++) {
      switch (rest[i]) {
        case "--datanodes":
          datanodes = Integer.parseInt(rest[++i]);
          break;
        case "--namenodes":
          namenodes = Integer.parseInt(rest[++i]);
          break;
        case "--dir":
          dir = Paths.get(rest[++i]);
          break;
        case "--port":
          port = Integer.parseInt(rest[++i]);
          break;
        case "--http-port":
          httpPort = Integer.parseInt(rest[++i]);
          break;
        case "--webhdfs-port":
          webHdfsPort = Integer.parseInt(rest[++i]);
          break;
        case "--no-webhdfs":
          webHdfs = false;
          break;
        case "-h":
        case "--help":
          System.out.println(USAGE);
          return;
        default:
          System.err.println("minicluster: unknown argument '" + rest[i] + "'\n" + USAGE);
          System.exit(2);
      }
    }
    Path absolute = dir.toAbsolutePath();
    Path memory = Paths.get("/dev/shm", "fffs-" + Integer.toHexString(absolute.toString().hashCode()));
    MiniFffsCluster.Builder builder = MiniFffsCluster.builder();
    if (webHdfs) {
      builder.webHdfs(webHdfsPort);
    }
    MiniFffsCluster cluster = builder
        .conf(conf)
        .baseDir(absolute)
        .memoryDir(memory)
        .numDataNodes(datanodes)
        .numNameNodes(namenodes)
        .nameNodePort(port)
        .httpPort(httpPort)
        .build();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        cluster.close();
        // Everything is on disk under the base directory now; the arena would hold its memory until reboot.
        org.apache.hadoop.fs.FileUtil.fullyDelete(memory.toFile());
      } catch (Exception e) {
        System.err.println("minicluster did not stop cleanly: " + e);
      }
      stopped.countDown();
    }, "fffs-minicluster-shutdown"));
    System.out.println("fs.defaultFS=" + cluster.getURI());
    if (namenodes > 1) {
      // What a client outside needs besides fs.defaultFS to find the NameNodes of fffs://mycluster.
      StringBuilder keys = new StringBuilder();
      for (java.util.Map.Entry<String, String> entry : cluster.getConfiguration()) {
        if (entry.getKey().startsWith("fffs.nameservices") || entry.getKey().startsWith("fffs.ha.namenodes.")
            || entry.getKey().startsWith("fffs.namenode.rpc-address.")) {
          keys.append(keys.length() == 0 ? "" : " ").append("-D ").append(entry.getKey()).append('=')
              .append(entry.getValue());
        }
      }
      System.out.println("ha=" + keys);
    }
    System.out.println("http=" + cluster.getHttpURI());
    if (webHdfs) {
      System.out.println("webhdfs=" + cluster.getWebHdfsURI() + "/webhdfs/v1/");
    }
    System.out.println("dir=" + absolute);
    System.out.println("memory=" + memory);
    System.out.println("READY");
    System.out.flush();
    stopped.await();
  }
}
