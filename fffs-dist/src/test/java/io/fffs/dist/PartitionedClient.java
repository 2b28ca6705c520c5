package io.fffs.dist;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;

/**
 * A client on the far side of a partition: run inside a NameNode's network namespace ({@link HaPartitionIT}), it
 * connects to that NameNode by its own address, says {@code ready}, waits for a line on stdin (sent once the link is
 * cut) and then asks for two changes, printing for each {@code acknowledged PATH} or {@code refused PATH MS ERROR}.
 * Started before the cut, so its first change reaches the NameNode while that still believes it leads.
 * Usage: {@code PartitionedClient HOST PORT PATH...}.
 */
public final class PartitionedClient {
  private PartitionedClient() {}

  public static void main(String[] args) throws IOException {
    Configuration conf = new Configuration();
    conf.set("fffs.client.response.timeout", "20s");
    HybridLogicalClock clock = new HybridLogicalClock(PhysicalClock.system(), conf);
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (NamenodeClient nn = NamenodeClient.connect(new InetSocketAddress(args[0], Integer.parseInt(args[1])), conf,
        clock)) {
      nn.getFileInfo("/", TimeSpec.latest());  // connected, classes loaded: the change below goes out at once
      System.out.println("ready");
      System.out.flush();
      if (stdin.readLine() == null) {
        return;
      }
      for (int i = 2; i < args.length; i++) {
        long started = System.nanoTime();
        try {
          nn.mkdirs(args[i], 0755, true);
          System.out.println("acknowledged " + args[i]);
        } catch (IOException e) {
          System.out.println("refused " + args[i] + " " + (System.nanoTime() - started) / 1_000_000 + " "
              + e.toString().replace('\n', ' '));
        }
        System.out.flush();
      }
    }
  }
}
