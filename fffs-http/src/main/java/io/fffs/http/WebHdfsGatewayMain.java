package io.fffs.http;

import io.fffs.common.conf.GenericArgs;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.apache.hadoop.conf.Configuration;

/**
 * {@code bin/fffs http [-D key=value]...}: runs a WebHDFS gateway until SIGINT/SIGTERM — beside the NameNode
 * (with {@code fffs.http.data-gateways} naming the others) or beside a DataNode. Serves the file system of
 * {@code fffs.http.filesystem} (default {@code fs.defaultFS}) on {@code fffs.http.address}; prints
 * {@code webhdfs=http://host:port/webhdfs/v1/} and {@code READY}. Configuration: {@code fffs-site.xml} and
 * {@code core-site.xml} on the class path, then {@code -D}.
 */
public final class WebHdfsGatewayMain {
  static final String USAGE = "usage: bin/fffs http [-D fffs.http.address=HOST:PORT]"
      + " [-D fffs.http.filesystem=fffs://NN] [-D fffs.http.data-gateways=HOST:PORT,...]\n  " + GenericArgs.USAGE;

  private WebHdfsGatewayMain() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.addResource("fffs-site.xml");
    List<String> rest = Arrays.asList(GenericArgs.applyOrExit(conf, args, "fffs http", USAGE, 2));
    if (rest.contains("-h") || rest.contains("--help")) {
      System.out.println(USAGE);
      return;
    }
    if (!rest.isEmpty()) {
      System.err.println("fffs http: unknown arguments " + rest + "\n" + USAGE);
      System.exit(2);
    }
    WebHdfsGateway gateway = WebHdfsGateway.start(conf);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        gateway.close();
      } catch (Exception e) {
        System.err.println("the gateway did not stop cleanly: " + e);
      }
      stopped.countDown();
    }, "fffs-http-shutdown"));
    System.out.println("webhdfs=" + gateway.uri() + RequestPath.PREFIX + "/");
    System.out.println("READY");
    System.out.flush();
    stopped.await();
  }
}
