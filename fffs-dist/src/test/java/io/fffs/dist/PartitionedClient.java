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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;

/**
 * A client on the far side of a partition: run inside a NameNode's network namespace ({@link HaPartitionIT}), it
 * connects to that NameNode by its own address, says {@code ready}, waits for a line on stdin (sent once the link is
 * cut) and then asks for two changes, printing for each {@code acknowledged PATH} or {@code refused PATH MS ERROR}.
 * Started before the cut, so its first change reaches the NameNode while that still believes it leads. Then it waits
 * for a second line (sent once the other side made a change under {@code READ}) and asks for the latest state of
 * {@code READ}: its status, its parent's listing, and its status at the client's present (a system time past what the
 * NameNode committed), printing {@code answered WHAT present|absent} or {@code refused WHAT MS ERROR} for each, and
 * last {@code role ROLE}, the NameNode's {@code haRole} on its HTTP port's {@code /status}.
 * Usage: {@code PartitionedClient HOST PORT PATH... [--read READ HTTP_PORT]}.
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
      int changes = args.length;
      for (int i = 2; i < args.length; i++) {
        if (args[i].equals("--read")) {
          changes = i;
        }
      }
      for (int i = 2; i < changes; i++) {
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
      if (changes < args.length && stdin.readLine() != null) {
        readLatest(nn, args[changes + 1], clock);
        System.out.println("role " + role(args[0], Integer.parseInt(args[changes + 2])));
      }
    }
  }

  private interface Read {
    boolean present() throws IOException;
  }

  private static void readLatest(NamenodeClient nn, String path, HybridLogicalClock clock) {
    String parent = path.substring(0, Math.max(1, path.lastIndexOf('/')));
    String name = path.substring(path.lastIndexOf('/') + 1);
    answer("status " + path, () -> nn.getFileInfo(path, TimeSpec.latest()) != null);
    answer("listing " + parent, () -> nn.getListing(parent, TimeSpec.latest(), "", 1000).getEntriesList().stream()
        .anyMatch(entry -> entry.getPath().equals(path) || entry.getPath().equals(name)));
    answer("present-time status " + path,
        () -> nn.getFileInfo(path, TimeSpec.system(clock.now().physicalMicros())) != null);
  }

  private static String role(String host, int httpPort) {
    try (var in = java.net.URI.create("http://" + host + ":" + httpPort + "/status").toURL().openStream()) {
      Matcher role = Pattern.compile("\"haRole\"\\s*:\\s*\"(\\w+)\"")
          .matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      return role.find() ? role.group(1) : "unknown";
    } catch (IOException e) {
      return "unreachable " + e;
    }
  }

  private static void answer(String what, Read read) {
    long started = System.nanoTime();
    try {
      System.out.println("answered " + what + (read.present() ? " present" : " absent"));
    } catch (IOException e) {
      System.out.println("refused " + what + " " + (System.nanoTime() - started) / 1_000_000 + " "
          + e.toString().replace('\n', ' '));
    }
    System.out.flush();
  }
}
