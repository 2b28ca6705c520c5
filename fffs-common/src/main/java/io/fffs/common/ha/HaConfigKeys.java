package io.fffs.common.ha;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.net.NetUtils;

/**
 * The settings of a highly available cluster, HDFS's keys under {@code fffs.}: a logical name ({@code fffs.nameservices},
 * used as {@code fffs://mycluster}), its NameNodes ({@code fffs.ha.namenodes.mycluster = nn1,nn2,nn3}) and each one's
 * RPC address ({@code fffs.namenode.rpc-address.mycluster.nn1}) and Raft address
 * ({@code fffs.namenode.ratis-address.mycluster.nn1}); a NameNode learns which one it is from
 * {@code fffs.ha.namenode.id}.
 */
public final class HaConfigKeys {
  /** The logical names of highly available clusters (comma separated). */
  public static final String NAMESERVICES_KEY = "fffs.nameservices";
  public static final String NAMENODES_PREFIX = "fffs.ha.namenodes.";
  public static final String RPC_ADDRESS_PREFIX = "fffs.namenode.rpc-address.";
  public static final String HTTP_ADDRESS_PREFIX = "fffs.namenode.http-address.";
  /** Where a NameNode's Raft server listens for the others. */
  public static final String RATIS_ADDRESS_PREFIX = "fffs.namenode.ratis-address.";
  /** Which of its cluster's NameNodes this one is (a NameNode of an HA cluster needs it). */
  public static final String NAMENODE_ID_KEY = "fffs.ha.namenode.id";
  /** Where the Raft log and its snapshots live (default: {@code ratis} in the name directory). */
  public static final String RATIS_DIR_KEY = "fffs.namenode.ratis.dir";
  /** A Raft snapshot (the namespace image) is taken after this many applied entries. */
  public static final String SNAPSHOT_ENTRIES_KEY = "fffs.ha.snapshot.entries";
  public static final long SNAPSHOT_ENTRIES_DEFAULT = 100_000;
  /** Leader election timeout (the lower bound; the upper is twice it): how soon a dead leader is replaced. */
  public static final String ELECTION_TIMEOUT_KEY = "fffs.ha.election-timeout";
  public static final long ELECTION_TIMEOUT_DEFAULT_MS = 1_000;
  /** How long a client tries the cluster's NameNodes in turn for a leader before it gives up. */
  public static final String CLIENT_FAILOVER_TIMEOUT_KEY = "fffs.client.failover.timeout";
  public static final long CLIENT_FAILOVER_TIMEOUT_DEFAULT_MS = 20_000;
  /**
   * How long a client or DataNode waits to connect to a NameNode of the cluster, or for its answer, before it tries
   * the next one: a leader cut off from the others neither answers nor breaks the connection.
   */
  public static final String CALL_TIMEOUT_KEY = "fffs.ha.call-timeout";
  public static final long CALL_TIMEOUT_DEFAULT_MS = 10_000;

  /** {@link #CALL_TIMEOUT_KEY} in milliseconds. */
  public static int callTimeoutMillis(Configuration conf) {
    return (int) conf.getTimeDuration(CALL_TIMEOUT_KEY, CALL_TIMEOUT_DEFAULT_MS, TimeUnit.MILLISECONDS);
  }

  /**
   * On a NameNode: whether it answers queries of past system times while it follows, for the times its applied log
   * covers (the others go to the leader).
   */
  public static final String FOLLOWER_READS_KEY = "fffs.ha.follower-reads";
  public static final boolean FOLLOWER_READS_DEFAULT = true;
  /**
   * On a client: whether it sends queries of past system times (status, listings, content summaries) to a
   * follower first; the follower answers as the leader would, or sends the query on to the leader.
   */
  public static final String CLIENT_FOLLOWER_READS_KEY = "fffs.client.follower-reads";
  public static final boolean CLIENT_FOLLOWER_READS_DEFAULT = false;
  /** On a client with follower reads: the NameNode (e.g. {@code nn2}) it asks first; unset, one picked at random. */
  public static final String CLIENT_FOLLOWER_READS_NAMENODE_KEY = "fffs.client.follower-reads.namenode";

  /** One NameNode of a cluster: its id and addresses. */
  public record NamenodeAddress(String id, InetSocketAddress rpc, String ratis) {}

  private HaConfigKeys() {}

  /** Whether {@code authority} (of a {@code fffs://} URI) is a logical name listed in {@code fffs.nameservices}. */
  public static boolean isLogical(Configuration conf, String authority) {
    if (authority == null || authority.contains(":")) {
      return false;
    }
    Collection<String> services = conf.getTrimmedStringCollection(NAMESERVICES_KEY);
    return services.contains(authority);
  }

  /** The NameNodes of cluster {@code nameservice}, in the order listed; {@code IllegalArgumentException} if none. */
  public static List<NamenodeAddress> namenodes(Configuration conf, String nameservice) {
    Collection<String> ids = conf.getTrimmedStringCollection(NAMENODES_PREFIX + nameservice);
    if (ids.isEmpty()) {
      throw new IllegalArgumentException(NAMENODES_PREFIX + nameservice + " lists no NameNodes");
    }
    List<NamenodeAddress> all = new ArrayList<>();
    for (String id : ids) {
      String rpcKey = RPC_ADDRESS_PREFIX + nameservice + "." + id;
      String rpc = conf.getTrimmed(rpcKey);
      if (rpc == null) {
        throw new IllegalArgumentException(rpcKey + " is not set");
      }
      all.add(new NamenodeAddress(id, NetUtils.createSocketAddr(rpc, 0, rpcKey),
          conf.getTrimmed(RATIS_ADDRESS_PREFIX + nameservice + "." + id)));
    }
    return all;
  }

  /** The one nameservice a NameNode serves ({@code fffs.nameservices} with a single name), or null without HA. */
  public static String ownNameservice(Configuration conf) {
    Collection<String> services = conf.getTrimmedStringCollection(NAMESERVICES_KEY);
    if (services.isEmpty() || conf.getTrimmed(NAMENODE_ID_KEY) == null) {
      return null;
    }
    if (services.size() > 1) {
      throw new IllegalArgumentException(NAMESERVICES_KEY + " names several clusters; a NameNode serves one");
    }
    return services.iterator().next();
  }
}
