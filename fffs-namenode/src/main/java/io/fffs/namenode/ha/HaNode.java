package io.fffs.namenode.ha;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.ha.HaConfigKeys;
import io.fffs.namenode.NameNodeConfigKeys;
import io.fffs.namenode.fs.Namesystem;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.RaftServerRpcWithProxy;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One NameNode's place in a highly available cluster: its Raft server (Apache Ratis over Netty) in the group of the
 * cluster's NameNodes, the {@link NamenodeStateMachine} that holds its namesystem, and what {@code bin/fffs admin}
 * asks of it (its role, the leader, moving the lead).
 */
public final class HaNode implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(HaNode.class);

  private final String nameservice;
  private final RaftPeerId self;
  private final RaftGroup group;
  private final RaftServer server;
  private final NamenodeStateMachine stateMachine;
  private final RaftProperties properties;
  private final Object transferLock = new Object();

  private HaNode(String nameservice, RaftPeerId self, RaftGroup group, RaftServer server,
      NamenodeStateMachine stateMachine, RaftProperties properties) {
    this.nameservice = nameservice;
    this.self = self;
    this.group = group;
    this.server = server;
    this.stateMachine = stateMachine;
    this.properties = properties;
  }

  /** The Raft group of cluster {@code nameservice}: the same id on every NameNode, derived from the name. */
  static RaftGroupId groupId(String nameservice) {
    return RaftGroupId.valueOf(UUID.nameUUIDFromBytes(("fffs-ha-" + nameservice).getBytes(StandardCharsets.UTF_8)));
  }

  /** The cluster id a new namespace of {@code nameservice} gets (the same on every NameNode). */
  public static String clusterId(String nameservice) {
    return "CID-" + groupId(nameservice).getUuid();
  }

  /**
   * A copy of {@code conf} in which the HA NameNode {@code fffs.ha.namenode.id} of cluster {@code nameservice} has its
   * own RPC and HTTP addresses under the plain keys.
   */
  public static Configuration resolve(Configuration conf, String nameservice) {
    Configuration own = new Configuration(conf);
    String id = conf.getTrimmed(HaConfigKeys.NAMENODE_ID_KEY);
    String rpc = conf.getTrimmed(HaConfigKeys.RPC_ADDRESS_PREFIX + nameservice + "." + id);
    if (rpc == null) {
      throw new IllegalArgumentException(HaConfigKeys.RPC_ADDRESS_PREFIX + nameservice + "." + id + " is not set");
    }
    own.set(NameNodeConfigKeys.RPC_ADDRESS_KEY, rpc);
    String http = conf.getTrimmed(HaConfigKeys.HTTP_ADDRESS_PREFIX + nameservice + "." + id);
    if (http != null) {
      own.set(NameNodeConfigKeys.HTTP_ADDRESS_KEY, http);
    }
    return own;
  }

  /**
   * Starts this NameNode's Raft server; its state machine loads the newest snapshot and builds the namesystem with
   * {@code loader}, and Raft replays the committed entries after it. {@code onStale} is told when this NameNode's
   * namespace must be loaded again (see {@link NamenodeStateMachine}).
   */
  public static HaNode start(Configuration conf, String nameservice, Path nameDir,
      NamenodeStateMachine.Loader loader, Runnable onStale) throws IOException {
    String selfId = conf.getTrimmed(HaConfigKeys.NAMENODE_ID_KEY);
    List<RaftPeer> peers = new ArrayList<>();
    String ownAddress = null;
    for (HaConfigKeys.NamenodeAddress nn : HaConfigKeys.namenodes(conf, nameservice)) {
      if (nn.ratis() == null) {
        throw new IllegalArgumentException(HaConfigKeys.RATIS_ADDRESS_PREFIX + nameservice + "." + nn.id()
            + " is not set");
      }
      peers.add(RaftPeer.newBuilder().setId(nn.id()).setAddress(nn.ratis()).build());
      if (nn.id().equals(selfId)) {
        ownAddress = nn.ratis();
      }
    }
    if (ownAddress == null) {
      throw new IllegalArgumentException(HaConfigKeys.NAMENODE_ID_KEY + "=" + selfId + " is not one of "
          + HaConfigKeys.NAMENODES_PREFIX + nameservice);
    }
    checkFree(ownAddress, selfId);
    RaftGroup group = RaftGroup.valueOf(groupId(nameservice), peers);
    Path storage = Paths.get(conf.getTrimmed(HaConfigKeys.RATIS_DIR_KEY, nameDir.resolve("ratis").toString()));
    Files.createDirectories(storage);
    RaftProperties properties = properties(conf, storage, ownAddress);
    boolean existing = Files.isDirectory(storage.resolve(group.getGroupId().getUuid().toString()));
    long electionMs = NameNodeConfigKeys.millis(conf, HaConfigKeys.ELECTION_TIMEOUT_KEY,
        HaConfigKeys.ELECTION_TIMEOUT_DEFAULT_MS);
    // Sound while followers reject pre-votes (Ratis's default) within an election timeout of hearing the leader; a
    // tenth of it to spare for clocks that run at different rates.
    ReadLease lease = new ReadLease(TimeUnit.MILLISECONDS.toNanos(electionMs) * 9 / 10, peers.size(), System::nanoTime);
    NamenodeStateMachine stateMachine = new NamenodeStateMachine(nameservice, loader, onStale,
        conf.getBoolean(HaConfigKeys.FOLLOWER_READS_KEY, HaConfigKeys.FOLLOWER_READS_DEFAULT), lease,
        TimeUnit.MILLISECONDS.toNanos(electionMs) / 2);
    RaftServer server = RaftServer.newBuilder()
        .setServerId(RaftPeerId.valueOf(selfId))
        .setGroup(group)
        .setStateMachine(stateMachine)
        .setProperties(properties)
        .setOption(existing ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
        .build();
    try {
      server.start();
      if (stateMachine.namesystem() == null) {
        throw new FffsException(ErrorCode.INTERNAL, "the Raft server of " + selfId + " started without a namespace");
      }
    } catch (IOException | RuntimeException e) {
      // A start that failed part-way (a namespace that would not load, a port taken meanwhile) has started Raft's
      // threads, Netty's non-daemon event loops among them: closed here, else they keep the JVM alive.
      closeFailed(server, group.getGroupId(), e);
      throw e;
    }
    LOG.info("NameNode {} of {} joined the Raft group {} at {}", selfId, nameservice, group.getGroupId(),
        ownAddress);
    return new HaNode(nameservice, RaftPeerId.valueOf(selfId), group, server, stateMachine, properties);
  }

  private static RaftProperties properties(Configuration conf, Path storage, String ownAddress) {
    RaftProperties properties = new RaftProperties();
    RaftConfigKeys.Rpc.setType(properties, new LeaseTrackingNetty());  // Netty, its appenders feeding the read lease
    int colon = ownAddress.lastIndexOf(':');
    NettyConfigKeys.Server.setHost(properties, ownAddress.substring(0, colon));
    NettyConfigKeys.Server.setPort(properties, Integer.parseInt(ownAddress.substring(colon + 1)));
    RaftServerConfigKeys.setStorageDir(properties, Collections.singletonList(storage.toFile()));
    long electionMs = NameNodeConfigKeys.millis(conf, HaConfigKeys.ELECTION_TIMEOUT_KEY,
        HaConfigKeys.ELECTION_TIMEOUT_DEFAULT_MS);
    RaftServerConfigKeys.Rpc.setTimeoutMin(properties, TimeDuration.valueOf(electionMs, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(properties, TimeDuration.valueOf(2 * electionMs, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.LeaderElection.setPreVote(properties, true);  // the read lease relies on it (Ratis's default)
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties,
        conf.getLong(HaConfigKeys.SNAPSHOT_ENTRIES_KEY, HaConfigKeys.SNAPSHOT_ENTRIES_DEFAULT));
    // A snapshot at stop would be taken while the namesystem closes.
    RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(properties, false);
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(properties, 2);
    // Else the leader appends, syncs and replicates a commit-index entry after each commit: a second Raft entry per
    // change. Raft needs no durable commit index; a restarted NameNode applies past its snapshot once a leader
    // tells it what is committed.
    RaftServerConfigKeys.Log.setLogMetadataEnabled(properties, false);
    return properties;
  }

  public Namesystem namesystem() {
    return stateMachine.namesystem();
  }

  public String nameservice() {
    return nameservice;
  }

  public String id() {
    return self.toString();
  }

  /** Whether this NameNode leads and takes changes now. */
  public boolean isLeader() {
    return stateMachine.isLeader();
  }

  /** Queries of past times this NameNode answered while it followed (the leader answers the rest). */
  public long pastReadsServed() {
    return stateMachine.pastReadsServed();
  }

  /** The stamp of the last committed op this NameNode applied: it answers queries of the times before it. */
  public io.fffs.common.time.HlcTimestamp committedFrontier() {
    return io.fffs.common.time.HlcTimestamp.valueOf(stateMachine.committedHlc());
  }

  /** The leader this NameNode knows of, or null. */
  public String leaderId() {
    RaftPeerId leader = stateMachine.leaderId();
    return leader == null ? null : leader.toString();
  }

  /** This NameNode's Raft role (LEADER, FOLLOWER, CANDIDATE), its term and last applied log index. */
  public String describe() throws IOException {
    DivisionInfo info = server.getDivision(group.getGroupId()).getInfo();
    return info.getCurrentRole() + " term " + info.getCurrentTerm() + " applied " + info.getLastAppliedIndex();
  }

  /**
   * Moves the lead from this NameNode, which must be the leader, to NameNode {@code to}; returns once it moved or
   * {@code timeoutMs} passed. No change is stamped meanwhile, and every one stamped before is committed first, so
   * this leader hands over with nothing uncommitted (the changes that waited get {@code NOT_LEADER} and go to the
   * new leader).
   */
  public void transferLeadership(String to, long timeoutMs) throws IOException {
    // One transfer at a time: a failed one's end must not lift the lease's suspension while another is under way.
    synchronized (transferLock) {
      stateMachine.checkLeader("move the lead");
      stateMachine.handingOver();
      boolean moved = false;
      try {
        transferPaused(to, timeoutMs);
        moved = true;
      } finally {
        if (!moved) {
          // The target may still get the election it was told to start as late as a request timeout from now.
          stateMachine.handOverFailed(RaftServerConfigKeys.Rpc.requestTimeout(properties)
              .toLong(TimeUnit.NANOSECONDS)
              + 2 * RaftServerConfigKeys.Rpc.timeoutMax(properties).toLong(TimeUnit.NANOSECONDS));
        }
      }
    }
  }

  private void transferPaused(String to, long timeoutMs) throws IOException {
    namesystem().whilePaused(() -> {
      // Bounded: a NameNode that is down must not keep the caller retrying forever.
      try (RaftClient client = RaftClient.newBuilder().setProperties(properties).setRaftGroup(group)
          .setLeaderId(self).setRetryPolicy(org.apache.ratis.retry.RetryPolicies
              .retryUpToMaximumCountWithFixedSleep(20, TimeDuration.valueOf(100, TimeUnit.MILLISECONDS))).build()) {
        RaftClientReply reply = client.admin().transferLeadership(RaftPeerId.valueOf(to), timeoutMs);
        if (!reply.isSuccess()) {
          throw new FffsException(ErrorCode.IO_ERROR, "the lead did not move to " + to + ": "
              + reply.getException());
        }
      }
      // Before the write lock is released: Raft may tell this state machine of the new leader only later, and a
      // change stamped meanwhile could never be committed (this NameNode would reload).
      stateMachine.handedOver();
      return null;
    });
  }

  /** This NameNode's current Raft term: it rises by one with each election (a transfer of the lead is one). */
  public long term() throws IOException {
    return server.getDivision(group.getGroupId()).getInfo().getCurrentTerm();
  }

  /** The index of the last Raft log entry this NameNode knows committed. */
  long commitIndex() throws IOException {
    return server.getDivision(group.getGroupId()).getRaftLog().getLastCommittedIndex();
  }

  NamenodeStateMachine stateMachine() {
    return stateMachine;
  }

  /** The Raft group's storage directory on this NameNode (tests look at its snapshots). */
  File storageDirectory() throws IOException {
    return server.getDivision(group.getGroupId()).getRaftStorage().getStorageDir().getRoot();
  }

  /**
   * Fails before Ratis starts anything when this NameNode's Raft address is taken: a Ratis server whose RPC does not
   * bind goes back to NEW, and its close() then stops none of the threads its start began.
   */
  private static void checkFree(String address, String selfId) throws FffsException {
    int colon = address.lastIndexOf(':');
    String host = address.substring(0, colon);
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(true);
      probe.bind(host.isEmpty() ? new InetSocketAddress(Integer.parseInt(address.substring(colon + 1)))
          : new InetSocketAddress(host, Integer.parseInt(address.substring(colon + 1))));
    } catch (IOException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "the Raft address " + address + " of " + selfId + " is taken", e);
    }
  }

  private static void closeFailed(RaftServer server, RaftGroupId groupId, Exception cause) {
    try {
      if (server.getLifeCycleState() == LifeCycle.State.NEW) {
        // Ratis reset it after an IOException (its RPC did not bind after all): close() would be a no-op, so the
        // group's threads and the event loops are stopped here; only two idle executors of Ratis's stay.
        LOG.warn("Raft server {} failed to start and cannot be fully closed", server.getId(), cause);
        server.getDivision(groupId).close();
        if (server.getServerRpc() instanceof RaftServerRpcWithProxy<?, ?> rpc) {
          rpc.closeImpl();
        }
      }
      server.close();
    } catch (IOException | RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
