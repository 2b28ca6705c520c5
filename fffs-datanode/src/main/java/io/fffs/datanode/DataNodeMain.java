package io.fffs.datanode;

import io.fffs.common.conf.GenericArgs;
import io.fffs.common.time.PhysicalClock;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * {@code bin/fffs datanode [-D key=value]...}: runs a DataNode until SIGINT/SIGTERM. It registers with the NameNode
 * at {@code fffs.namenode.rpc-address} (waiting for it up to {@code fffs.datanode.register.timeout}), then prints
 * {@code data=host:port}, {@code id=uuid} and {@code READY}. Configuration: {@code fffs-site.xml} and
 * {@code core-site.xml} on the class path, then {@code -D}.
 */
public final class DataNodeMain {
  static final String USAGE = "usage: bin/fffs datanode [-D key=value]...\n  " + GenericArgs.USAGE;

  private DataNodeMain() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.addResource("fffs-site.xml");
    List<String> rest = Arrays.asList(GenericArgs.applyOrExit(conf, args, "fffs datanode", USAGE, 2));
    if (rest.contains("-h") || rest.contains("--help")) {
      System.out.println(USAGE);
      return;
    }
    if (!rest.isEmpty()) {
      System.err.println("fffs datanode: unknown arguments " + rest + "\n" + USAGE);
      System.exit(2);
    }
    DataNode dataNode = startOrExit(conf);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        dataNode.close();
      } catch (Exception e) {
        System.err.println("DataNode did not stop cleanly: " + e);
      }
    }, "fffs-datanode-shutdown"));
    System.out.println("data=" + dataNode.datanodeId().getHost() + ":" + dataNode.datanodeId().getDataPort());
    System.out.println("http=http://" + dataNode.datanodeId().getHost() + ":" + dataNode.datanodeId().getHttpPort());
    System.out.println("id=" + dataNode.uuid());
    System.out.println("READY");
    dataNode.join();
  }

  /** Starts the DataNode, or exits 1 saying why (a port taken, a data directory it cannot write). */
  private static DataNode startOrExit(Configuration conf) {
    try {
      return DataNode.start(conf, PhysicalClock.system());
    } catch (java.io.IOException | RuntimeException e) {
      // Threads started before the failure would keep a half-started process alive.
      e.printStackTrace();
      System.err.println("fffs datanode: cannot start: " + e.getMessage());  // the reason, last
      System.exit(1);
      throw new IllegalStateException(e);  // not reached
    }
  }
}
