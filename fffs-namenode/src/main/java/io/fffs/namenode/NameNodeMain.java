package io.fffs.namenode;

import io.fffs.common.conf.GenericArgs;
import io.fffs.common.time.PhysicalClock;
import io.fffs.namenode.fs.NameStorage;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * {@code bin/fffs namenode [-format] [-D key=value]...}: runs a NameNode until SIGINT/SIGTERM. An empty name
 * directory is formatted on first start; {@code -format} formats it and exits (refusing one that holds a
 * namespace). Configuration: {@code fffs-site.xml} and {@code core-site.xml} on the class path, then {@code -D}.
 */
public final class NameNodeMain {
  static final String USAGE = "usage: bin/fffs namenode [-format] [-D key=value]...\n"
      + "  -format   format the name directory (fffs.namenode.name.dir) and exit\n  " + GenericArgs.USAGE;

  private NameNodeMain() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.addResource("fffs-site.xml");
    List<String> rest = Arrays.asList(GenericArgs.applyOrExit(conf, args, "fffs namenode", USAGE, 2));
    if (rest.contains("-h") || rest.contains("--help")) {
      System.out.println(USAGE);
      return;
    }
    if (!rest.stream().allMatch("-format"::equals)) {
      System.err.println("fffs namenode: unknown arguments " + rest + "\n" + USAGE);
      System.exit(2);
    }
    if (rest.contains("-format")) {
      Path nameDir = Paths.get(conf.get(NameNodeConfigKeys.NAME_DIR_KEY, NameNodeConfigKeys.NAME_DIR_DEFAULT));
      NameStorage.format(nameDir, UserGroupInformation.getCurrentUser().getShortUserName(),
          conf.get(NameNodeConfigKeys.SUPERGROUP_KEY, NameNodeConfigKeys.SUPERGROUP_DEFAULT));
      System.out.println("formatted " + nameDir.toAbsolutePath());
      return;
    }
    java.util.concurrent.atomic.AtomicReference<NameNode> running = new java.util.concurrent.atomic.AtomicReference<>();
    try {
      running.set(NameNode.start(conf, PhysicalClock.system(), System::nanoTime));
    } catch (IOException | RuntimeException e) {
      // Threads started before the failure (a port already taken, say) would keep a half-started process alive.
      e.printStackTrace();
      System.err.println("fffs namenode: cannot start: " + e.getMessage());  // the reason, last
      System.exit(1);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        running.get().close();
      } catch (Exception e) {
        System.err.println("NameNode did not stop cleanly: " + e);
      }
    }, "fffs-namenode-shutdown"));
    System.out.println("fs.defaultFS=" + running.get().uri());
    System.out.println("http=" + running.get().httpUri());
    System.out.println("READY");
    running.get().join();
    // An HA NameNode that must load its namespace again stops itself; it starts again here, on the same ports.
    while (running.get().reloadWanted()) {
      running.get().close();  // waits for the reload's own stop to finish
      running.set(NameNode.start(conf, PhysicalClock.system(), System::nanoTime));
      running.get().join();
    }
  }
}
