package io.fffs.minicluster;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.GenericOptionsParser;

/**
 * {@code bin/fffs minicluster [--datanodes N] [--dir DIR] [--port P] [--http-port H] [--webhdfs-port W]
 * [--no-webhdfs] [-D key=value]...}: the embedded default, WebHDFS gateways included (port 0: a free one). Keeps its state in DIR
 * (default {@code ./fffs-data}) so a restart shows the same history; prints {@code fs.defaultFS=…}, {@code http=…},
 * {@code webhdfs=…} and {@code READY}; stops cleanly on SIGINT/SIGTERM.
 */
public final class MiniClusterMain {
  private MiniClusterMain() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.addResource("fffs-site.xml");
    String[] rest = new GenericOptionsParser(conf, args).getRemainingArgs();
    int datanodes = 1;
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
          System.out.println("usage: bin/fffs minicluster [--datanodes N] [--dir DIR] [--port P] [--http-port H]"
              + " [--webhdfs-port W] [--no-webhdfs] [-D key=value]...");
          return;
        default:
          System.err.println("minicluster: unknown argument '" + rest[i] + "' (try --help)");
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
