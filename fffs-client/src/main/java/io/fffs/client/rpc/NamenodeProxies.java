package io.fffs.client.rpc;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.ha.HaConfigKeys;
import io.fffs.common.ipc.ClientNamenodeProtocolPB;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeys;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.ipc.ProtobufRpcEngine2;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.ipc.RemoteException;

/**
 * The NameNode proxies of one client and which one it talks to: one NameNode, or the NameNodes of a highly available
 * cluster ({@code fffs://mycluster}), of which it follows the leader. A call that a follower refuses
 * ({@code NOT_LEADER}, naming the leader when it knows it) or that meets a broken or refused connection is tried on
 * the leader named, else on the next NameNode, and one a new leader refuses while it waits for block reports
 * ({@code LEADER_STARTING}) again on it, until {@code fffs.client.failover.timeout}; every proxy shares one
 * Hadoop IPC client, so retries carry the same client id and call id and the retry caches answer them once.
 */
final class NamenodeProxies implements Closeable {
  private static final Pattern LEADER = Pattern.compile("leader=(\\S+?)[;,)\\s]");
  private static final Pattern RESET = Pattern.compile("Connection reset|Broken pipe");
  /** Connection failures a single NameNode's call is retried after (a restart leaves broken pooled connections). */
  private static final int SINGLE_ATTEMPTS = 4;

  private final String nameservice;
  private final List<String> ids = new ArrayList<>();
  private final List<InetSocketAddress> addresses = new ArrayList<>();
  private final List<ClientNamenodeProtocolPB> proxies = new ArrayList<>();
  private final long failoverTimeoutNanos;
  private volatile int current;
  /** The NameNode past reads go to first, or -1 without follower reads. */
  private volatile int reader = -1;

  private NamenodeProxies(String nameservice, long failoverTimeoutMs) {
    this.nameservice = nameservice;
    this.failoverTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(failoverTimeoutMs);
  }

  static NamenodeProxies single(InetSocketAddress address, Configuration conf) throws IOException {
    NamenodeProxies single = new NamenodeProxies(null, 0);
    single.add(address.toString(), address, rpcConf(conf));
    return single;
  }

  /** The NameNodes of cluster {@code nameservice}, tried in the order listed until one leads. */
  static NamenodeProxies ha(String nameservice, Configuration conf) throws IOException {
    NamenodeProxies ha = new NamenodeProxies(nameservice, conf.getTimeDuration(
        HaConfigKeys.CLIENT_FAILOVER_TIMEOUT_KEY, HaConfigKeys.CLIENT_FAILOVER_TIMEOUT_DEFAULT_MS,
        TimeUnit.MILLISECONDS));
    Configuration rpcConf = rpcConf(conf);
    // A NameNode that is down is skipped at once rather than after Hadoop IPC's ten connection retries.
    rpcConf.setInt(CommonConfigurationKeysPublic.IPC_CLIENT_CONNECT_MAX_RETRIES_KEY, 0);
    rpcConf.setInt(CommonConfigurationKeysPublic.IPC_CLIENT_CONNECT_MAX_RETRIES_ON_SOCKET_TIMEOUTS_KEY, 0);
    // A partitioned leader never answers: without a bound the call would wait for Hadoop IPC's ping interval (a
    // minute) before the client tries the others. A change retried meanwhile is answered once by the retry cache.
    int callTimeoutMs = HaConfigKeys.callTimeoutMillis(conf);
    rpcConf.setInt(CommonConfigurationKeysPublic.IPC_CLIENT_CONNECT_TIMEOUT_KEY, callTimeoutMs);
    rpcConf.setInt(CommonConfigurationKeys.IPC_CLIENT_RPC_TIMEOUT_KEY, callTimeoutMs);
    for (HaConfigKeys.NamenodeAddress nn : HaConfigKeys.namenodes(conf, nameservice)) {
      ha.add(nn.id(), nn.rpc(), rpcConf);
    }
    if (conf.getBoolean(HaConfigKeys.CLIENT_FOLLOWER_READS_KEY, HaConfigKeys.CLIENT_FOLLOWER_READS_DEFAULT)) {
      String named = conf.getTrimmed(HaConfigKeys.CLIENT_FOLLOWER_READS_NAMENODE_KEY);
      int index = named == null ? -1 : ha.ids.indexOf(named);
      if (named != null && index < 0) {
        throw new IllegalArgumentException(HaConfigKeys.CLIENT_FOLLOWER_READS_NAMENODE_KEY + "=" + named
            + " is not one of " + ha.ids);
      }
      // Spread over the NameNodes: each client reads the past from its own pick.
      ha.reader = index >= 0 ? index : java.util.concurrent.ThreadLocalRandom.current().nextInt(ha.ids.size());
    }
    return ha;
  }

  private static Configuration rpcConf(Configuration conf) {
    Configuration rpcConf = new Configuration(conf);
    RPC.setProtocolEngine(rpcConf, ClientNamenodeProtocolPB.class, ProtobufRpcEngine2.class);
    return rpcConf;
  }

  private void add(String id, InetSocketAddress address, Configuration rpcConf) throws IOException {
    ids.add(id);
    addresses.add(address);
    proxies.add(RPC.getProxy(ClientNamenodeProtocolPB.class, RPC.getProtocolVersion(ClientNamenodeProtocolPB.class),
        address, rpcConf));
  }

  ClientNamenodeProtocolPB current() {
    return proxies.get(current);
  }

  /** The NameNode a query of a past time goes to first, or null when this client reads only from the leader. */
  ClientNamenodeProtocolPB reader() {
    int index = reader;
    return index < 0 ? null : proxies.get(index);
  }

  /** The reader did not answer (a broken connection): past reads go to the next NameNode from now on. */
  void readerUnreachable() {
    int index = reader;
    if (index >= 0) {
      reader = (index + 1) % proxies.size();
    }
  }

  /** The NameNode calls go to now (named in error messages). */
  String describe() {
    return nameservice == null ? addresses.get(0).toString()
        : ids.get(current) + " of " + nameservice + " (" + addresses.get(current) + ")";
  }

  /**
   * After attempt {@code attempt} (from 0) failed with {@code failure}, started at {@code startNanos}: whether to try
   * again, having moved to the NameNode to try. Returns how long to wait first (ms), or -1 to give up.
   */
  long retryAfter(IOException failure, int attempt, long startNanos) {
    boolean connection = brokenConnection(failure);
    if (nameservice == null) {
      return connection && attempt + 1 < SINGLE_ATTEMPTS ? 100L * (attempt + 1) : -1;
    }
    boolean notLeader = failure instanceof FffsException coded && coded.code() == ErrorCode.NOT_LEADER;
    boolean starting = failure instanceof FffsException coded && coded.code() == ErrorCode.LEADER_STARTING;
    if (!(notLeader || connection || starting) || System.nanoTime() - startNanos > failoverTimeoutNanos) {
      return -1;
    }
    if (starting) {
      return 100;  // the leader it is: ask it again once more DataNodes have reported
    }
    int named = notLeader ? leaderNamed(failure.getMessage()) : -1;
    if (named >= 0 && named != current) {
      current = named;
      return 0;
    }
    current = (current + 1) % proxies.size();
    // Once every NameNode was tried, wait for an election before the next round.
    return (attempt + 1) % proxies.size() == 0 ? Math.min(100L * (attempt + 1) / proxies.size(), 500) : 0;
  }

  /**
   * Whether {@code failure} is the connection's, not the NameNode's answer. Hadoop IPC wraps what the socket threw
   * in an exception of the same class when it can; a reset that NIO reports as a plain {@link IOException}
   * ("Connection reset by peer") stays plain, so the causes are looked at too.
   */
  static boolean brokenConnection(IOException failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof EOFException || t instanceof SocketException || t instanceof SocketTimeoutException
          || t instanceof ClosedChannelException) {
        return true;
      }
      if (t.getClass() == IOException.class && RESET.matcher(String.valueOf(t.getMessage())).find()) {
        return true;
      }
      if (t instanceof RemoteException) {
        return false;  // the NameNode's own answer
      }
    }
    return false;
  }

  private int leaderNamed(String message) {
    Matcher m = LEADER.matcher(String.valueOf(message) + " ");
    return m.find() ? ids.indexOf(m.group(1)) : -1;
  }

  @Override
  public void close() {
    proxies.forEach(RPC::stopProxy);
  }
}
