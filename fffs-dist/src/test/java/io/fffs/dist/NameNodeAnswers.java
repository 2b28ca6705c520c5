package io.fffs.dist;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeys;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;

/**
 * What each NameNode of a {@link NetnsCluster} answers now, for a failure message: its {@code /status} (role, leader,
 * Raft role and term, last txid, safe mode), its own answer to one change asked of it directly (no failover), and the
 * lines of its log about leading and Raft roles. The cluster's directory goes with the test, so a failure must carry
 * this itself.
 */
final class NameNodeAnswers {
  private static final List<Pattern> STATUS_FIELDS = Stream.of("haRole", "haLeader", "raft", "lastTxid", "safemode")
      .map(name -> Pattern.compile("\"" + name + "\"\\s*:\\s*(\"[^\"]*\"|[\\w.-]+)")).toList();
  /** Log lines worth a failure message: Raft roles and leaders, leading, reloads, warnings and errors. */
  private static final Pattern NOTABLE = Pattern.compile(
      "changes role from|change Leader from|leads |reload|ERROR|WARN (?!.*AuthenticationFilter)");
  private static final int LOG_LINES = 30;

  private NameNodeAnswers() {
  }

  /** Every NameNode's status, its answer to {@code mkdirs(dir)} and its notable log lines, one block each. */
  static String describe(NetnsCluster cluster, int nameNodes, String dir) {
    StringBuilder out = new StringBuilder();
    for (int node = 0; node < nameNodes; node++) {
      out.append("nn").append(node + 1).append(" (").append(cluster.ip(node)).append("): ")
          .append(status(cluster.nameNodeStatus(node))).append("\n  mkdirs ").append(dir).append(": ")
          .append(change(cluster, node, dir)).append('\n');
      for (String line : notableLog(cluster.nodeDir(node).resolve("log"))) {
        out.append("  | ").append(line).append('\n');
      }
    }
    return out.toString();
  }

  private static String status(String json) {
    if (json == null) {
      return "no /status answer";
    }
    List<String> fields = new ArrayList<>();
    for (Pattern field : STATUS_FIELDS) {
      Matcher m = field.matcher(json);
      if (m.find()) {
        fields.add(m.group());
      }
    }
    return String.join(" ", fields);
  }

  /** The NameNode's own answer to the change, without trying any other: "true"/"false" or the error. */
  private static String change(NetnsCluster cluster, int node, String dir) {
    Configuration conf = new Configuration();
    conf.setInt(CommonConfigurationKeysPublic.IPC_CLIENT_CONNECT_MAX_RETRIES_KEY, 0);
    conf.setInt(CommonConfigurationKeysPublic.IPC_CLIENT_CONNECT_MAX_RETRIES_ON_SOCKET_TIMEOUTS_KEY, 0);
    conf.setInt(CommonConfigurationKeysPublic.IPC_CLIENT_CONNECT_TIMEOUT_KEY, 2_000);
    conf.setInt(CommonConfigurationKeys.IPC_CLIENT_RPC_TIMEOUT_KEY, 5_000);
    long start = System.nanoTime();
    try (NamenodeClient nn = NamenodeClient.connect(new InetSocketAddress(cluster.ip(node), NetnsCluster.NN_PORT),
        conf, new HybridLogicalClock(PhysicalClock.system(), conf))) {
      return nn.mkdirs(dir, 0755, true) + " in " + (System.nanoTime() - start) / 1_000_000 + " ms";
    } catch (IOException | RuntimeException e) {
      return e + " after " + (System.nanoTime() - start) / 1_000_000 + " ms";
    }
  }

  private static List<String> notableLog(Path logDir) {
    List<String> notable = new ArrayList<>();
    try (Stream<Path> files = Files.list(logDir)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".log")).sorted().toList()) {
        for (String line : Files.readAllLines(file)) {
          if (NOTABLE.matcher(line).find()) {
            notable.add(line.length() > 300 ? line.substring(0, 300) + "..." : line);
          }
        }
      }
    } catch (IOException e) {
      notable.add("log unreadable: " + e);
    }
    return notable.subList(Math.max(0, notable.size() - LOG_LINES), notable.size());
  }
}
