package io.fffs.datanode.nn;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.ipc.DatanodeProtocolPB;
import io.fffs.common.ipc.RemoteErrors;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockReceivedRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.BlockReportRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.HeartbeatRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.HeartbeatResponseProto;
import io.fffs.common.security.BlockTokenVerifier;
import io.fffs.common.proto.DatanodeProtocolProtos.RegisterDatanodeRequestProto;
import io.fffs.common.proto.DatanodeProtocolProtos.RegisterDatanodeResponseProto;
import io.fffs.common.proto.DatanodeProtocolProtos.ReportedBlockProto;
import io.fffs.common.proto.DatanodeProtocolProtos.ReplicaToEndProto;
import io.fffs.common.proto.DatanodeProtocolProtos.WriterFenceProto;
import io.fffs.common.time.ClockSkewException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.datanode.replication.ReplicaTransfers;
import io.fffs.datanode.server.WriteListener;
import io.fffs.datanode.store.DiskUsage;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.ScrubberStatus;
import io.fffs.datanode.store.BlockSummary;
import io.fffs.datanode.store.MemoryUsage;
import java.io.IOException;
import java.io.InterruptedIOException;
import io.fffs.common.ha.HaConfigKeys;
import io.fffs.common.ha.LeaderFollowingProxy;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.ProtobufRpcEngine2;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A DataNode's link to its NameNode over Hadoop IPC ({@code DatanodeProtocol}), run by one thread
 * ({@code fffs-datanode-nn}): registration (retried at start until the NameNode answers, bounded by
 * {@code fffs.datanode.register.timeout}), heartbeats, full block reports after each registration and periodically,
 * and batched blockReceived calls shortly after writes.
 *
 * <p>Clock check: each call measures this node's offset from the NameNode NTP-style — sent at t0 (local), the
 * response carries the NameNode's physical time t1, received at t2: offset = (t0 + t2) / 2 - t1 — and the next
 * heartbeat carries the best recent one with its round trip ({@link ClockOffsetFilter}: the smallest round trip of
 * the last eight). The first registration is followed by up to seven heartbeats at once, as NTP's burst at start-up
 * does, until one comes back quickly, so that the estimate is good from the start. The NameNode's verdict ({@code healthy}, reason) is kept in
 * {@link NodeHealth}; the data server refuses writes while it is unhealthy.
 */
public final class NamenodeLink implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NamenodeLink.class);
  /** Most heartbeats sent at once after the first registration (NTP's iburst: eight samples in all). */
  private static final int BURST = ClockOffsetFilter.SAMPLES - 1;
  /** The burst ends early once an estimate is this good (µs): a quick LAN round trip. */
  private static final long BURST_ENOUGH_MICROS = 250;

  private final DatanodeProtocolPB proxy;
  private final InetSocketAddress address;
  private final DatanodeIdProto id;
  private final BlockStore store;
  private final HybridLogicalClock clock;
  private final NodeHealth health;
  private final BlockTokenVerifier blockKeys;
  private final ScheduledExecutorService thread;
  private final long heartbeatMillis;
  private final long blockReportMillis;
  private final long receivedDelayMillis;
  private final long retentionMillis;
  private final RetentionPuller retention;
  private final BlockCopier copier;
  private final ReplicaTransfers transfers;
  /** Replicas the NameNode asked this node to drop that were busy then; tried again with each heartbeat. */
  private final Set<Long> drops = ConcurrentHashMap.newKeySet();
  private final LongSupplier nanoTime;
  /** Blocks written, or whose replica's standing in a write pipeline changed, since the last blockReceived. */
  private final ReceivedReports received = new ReceivedReports();
  private final AtomicBoolean receivedScheduled = new AtomicBoolean();
  private volatile boolean registered;
  /** Heartbeats between two measurements of the segment files (each walks every block's log). */
  private static final int DISK_USAGE_EVERY = 10;
  private long heartbeats;
  private DiskUsage diskUsage;
  private boolean failing;
  private long lastBlockReportNanos;
  private boolean blockReportDue;
  /** A blockReceived failed: the NameNode misses writes until the next full block report. */
  private boolean receivedLost;
  private final ClockOffsetFilter offsets = new ClockOffsetFilter();
  /** The highest writer fence of the NameNode's installed here (reported in heartbeats). */
  private long fenceSeq;
  /** The highest writer fence a heartbeat told the NameNode this DataNode holds. */
  private long confirmedFenceSeq;

  private NamenodeLink(Configuration conf, DatanodeProtocolPB proxy, InetSocketAddress address, DatanodeIdProto id,
      BlockStore store, HybridLogicalClock clock, NodeHealth health, BlockTokenVerifier blockKeys) {
    this.proxy = proxy;
    this.blockKeys = blockKeys;
    this.address = address;
    this.id = id;
    this.store = store;
    this.clock = clock;
    this.health = health;
    this.heartbeatMillis = DataNodeServiceConfigKeys.heartbeatIntervalMillis(conf);
    this.blockReportMillis = DataNodeServiceConfigKeys.blockReportIntervalMillis(conf);
    this.receivedDelayMillis = DataNodeServiceConfigKeys.blockReceivedDelayMillis(conf);
    this.retentionMillis = DataNodeServiceConfigKeys.retentionIntervalMillis(conf);
    this.retention = new RetentionPuller(proxy, id.getDatanodeUuid(), store, clock);
    // A copy's last entry is reported with the next block report; until then it counts as unknown.
    this.copier = new BlockCopier(proxy, id.getDatanodeUuid(), store, clock,
        (blockId, length) -> written(blockId, length, HlcTimestamp.ZERO));
    this.transfers = new ReplicaTransfers(conf, store, clock);
    this.nanoTime = System::nanoTime;
    this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "fffs-datanode-nn");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Registers {@code id} with the NameNode of {@code conf} (retrying until it answers or the register timeout
   * passes), sends a full block report and starts heartbeating. The block keys in the NameNode's answers go to
   * {@code blockKeys}.
   */
  public static NamenodeLink start(Configuration conf, DatanodeIdProto id, BlockStore store, HybridLogicalClock clock,
      NodeHealth health, Receiver receiver, BlockTokenVerifier blockKeys) throws IOException {
    Configuration rpcConf = new Configuration(conf);
    // Our own loops retry; Hadoop's would hold a heartbeat for ten seconds per unreachable NameNode.
    rpcConf.setInt("ipc.client.connect.max.retries", 0);
    rpcConf.setInt("ipc.client.connect.max.retries.on.timeouts", 0);
    rpcConf.setInt("ipc.client.connect.timeout", 5_000);
    rpcConf.setInt("ipc.client.rpc-timeout.ms", 30_000);
    RPC.setProtocolEngine(rpcConf, DatanodeProtocolPB.class, ProtobufRpcEngine2.class);
    String nameservice = nameservice(conf);
    DatanodeProtocolPB proxy;
    InetSocketAddress address;
    if (nameservice == null) {
      address = DataNodeServiceConfigKeys.namenodeAddress(conf);
      proxy = RPC.getProxy(DatanodeProtocolPB.class, RPC.getProtocolVersion(DatanodeProtocolPB.class), address,
          rpcConf);
    } else {
      // A highly available cluster: this DataNode registers with, heartbeats to and reports to the leader only,
      // and follows it to the next one (which asks it to register again and takes its full block report). A leader
      // cut off from the others never answers, so a call to it gives up after the cluster's call timeout.
      rpcConf.setInt("ipc.client.connect.timeout", HaConfigKeys.callTimeoutMillis(conf));
      rpcConf.setInt("ipc.client.rpc-timeout.ms", HaConfigKeys.callTimeoutMillis(conf));
      List<String> ids = new ArrayList<>();
      List<DatanodeProtocolPB> targets = new ArrayList<>();
      for (HaConfigKeys.NamenodeAddress nn : HaConfigKeys.namenodes(conf, nameservice)) {
        ids.add(nn.id());
        targets.add(RPC.getProxy(DatanodeProtocolPB.class, RPC.getProtocolVersion(DatanodeProtocolPB.class),
            nn.rpc(), rpcConf));
      }
      proxy = LeaderFollowingProxy.create(DatanodeProtocolPB.class, ids, targets);
      address = InetSocketAddress.createUnresolved(nameservice, 0);
    }
    NamenodeLink link = new NamenodeLink(conf, proxy, address, id, store, clock, health, blockKeys);
    try {
      link.registerAtStart(DataNodeServiceConfigKeys.registerTimeoutMillis(conf));
    } catch (IOException | RuntimeException e) {
      link.close();
      throw e;
    }
    receiver.link = link;
    link.thread.scheduleWithFixedDelay(link::tick, link.heartbeatMillis, link.heartbeatMillis, TimeUnit.MILLISECONDS);
    link.thread.scheduleWithFixedDelay(link::pullRetentionQuietly, link.retentionMillis, link.retentionMillis,
        TimeUnit.MILLISECONDS);
    return link;
  }

  /**
   * The highly available cluster this DataNode serves: the logical name the NameNode address setting holds
   * ({@code mycluster} or {@code fffs://mycluster}), or, with that setting unset, the one {@code fffs.nameservices}
   * names; null for one NameNode at host:port.
   */
  private static String nameservice(Configuration conf) {
    String configured = conf.getTrimmed(DataNodeServiceConfigKeys.NAMENODE_ADDRESS_KEY);
    if (configured == null) {
      java.util.Collection<String> services = conf.getTrimmedStringCollection(HaConfigKeys.NAMESERVICES_KEY);
      return services.size() == 1 ? services.iterator().next() : null;
    }
    String authority = configured.contains("://") ? java.net.URI.create(configured).getAuthority() : configured;
    return HaConfigKeys.isLogical(conf, authority) ? authority : null;
  }

  private void registerAtStart(long timeoutMillis) throws IOException {
    long deadline = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    int attempts = 0;
    while (true) {
      attempts++;
      try {
        register();
        burst();
        return;
      } catch (IOException e) {
        if (e instanceof FffsException && ((FffsException) e).code() == ErrorCode.ACCESS_DENIED) {
          throw e;  // refused, not unreachable: retrying would not change the answer
        }
        if (nanoTime.getAsLong() > deadline) {
          throw new IOException("DataNode " + id.getDatanodeUuid() + " could not register with the NameNode at "
              + address + " within " + timeoutMillis + " ms (" + attempts + " attempts; "
              + DataNodeServiceConfigKeys.REGISTER_TIMEOUT_KEY + "): " + e.getMessage(), e);
        }
        if (attempts == 1 || attempts % 30 == 0) {
          LOG.info("Waiting for the NameNode at {} to register (attempt {}): {}", address, attempts, e.toString());
        }
        try {
          Thread.sleep(Math.min(1_000, heartbeatMillis));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while registering with the NameNode at " + address);
        }
      }
    }
  }

  /** Registers (or registers again) and sends a full block report. */
  private void register() throws IOException {
    MemoryUsage memory = store.memoryUsage();
    long t0 = clock.physicalClock().currentTimeMicros();
    RegisterDatanodeResponseProto response = call(() -> proxy.registerDatanode(null, RegisterDatanodeRequestProto
        .newBuilder().setHlc(clock.now().toProto()).setId(id).setCapacityBytes(memory.arenaCapacityBytes())
        .setPhysicalMicros(t0).build()));
    measure(t0, response.getNamenodePhysicalMicros());
    merge(response.getHlc());
    if (response.hasBlockKeys()) {
      blockKeys.update(response.getBlockKeys());
    }
    blockKeys.fences().install(response.getFencesList());
    fenceSeq = maxSeq(0, response.getFencesList());
    confirmedFenceSeq = 0;  // a restarted NameNode numbers its fences anew
    registered = true;
    ClockOffsetFilter.Estimate offset = offsets.best();
    LOG.info("Registered DataNode {} ({}:{}, {}) with the NameNode at {} (cluster {}); clock offset {} µs ± {} µs",
        id.getDatanodeUuid(), id.getHost(), id.getDataPort(), id.getTransport(), address, response.getClusterId(),
        offset.offsetMicros(), offset.errorMicros());
    blockReportDue = true;
    try {
      blockReport();
    } catch (IOException e) {
      // Registered all the same (a skewed clock, for one, makes the NameNode refuse reports): retried every tick.
      LOG.warn("Block report to the NameNode at {} failed (will retry): {}", address, e.getMessage());
    }
  }

  private void measure(long t0, long namenodeMicros) {
    offsets.add(t0, namenodeMicros, clock.physicalClock().currentTimeMicros());
  }

  /** A few heartbeats right after the first registration: more samples for the clock offset estimate. */
  private void burst() {
    try {
      for (int i = 0; i < BURST && offsets.best().errorMicros() > BURST_ENOUGH_MICROS; i++) {
        heartbeat();
      }
      ClockOffsetFilter.Estimate offset = offsets.best();
      LOG.info("Clock offset from the NameNode at {}: {} µs ± {} µs", address, offset.offsetMicros(),
          offset.errorMicros());
    } catch (IOException | RuntimeException e) {
      LOG.debug("Heartbeat after registration failed (the periodic ones retry): {}", e.toString());
    }
  }

  /** This DataNode's clock minus the NameNode's as best measured recently, or null before the first answer. */
  public ClockOffsetFilter.Estimate clockOffset() {
    return offsets.best();
  }

  private void merge(HlcProto namenodeHlc) {
    try {
      clock.merge(HlcTimestamp.fromProto(namenodeHlc));
    } catch (ClockSkewException e) {
      LOG.warn("Not merging the NameNode's clock: {}", e.getMessage());
    }
  }

  /** One heartbeat, plus a block report when due or when the NameNode asks to register again. */
  private void tick() {
    try {
      if (!registered) {
        register();
      }
      try {
        heartbeat();
      } catch (IOException e) {
        if (e instanceof FffsException) {
          throw e;
        }
        // A connection cached from before a NameNode restart fails once; the retry opens a new one.
        heartbeat();
      }
      if (blockReportDue
          || nanoTime.getAsLong() - lastBlockReportNanos >= TimeUnit.MILLISECONDS.toNanos(blockReportMillis)) {
        blockReport();
      }
      copier.pull();
      if (failing) {
        failing = false;
        LOG.info("The NameNode at {} answers again", address);
      }
    } catch (IOException | RuntimeException e) {
      if (!failing) {
        failing = true;
        LOG.warn("Heartbeat to the NameNode at {} failed (will retry every {} ms): {}", address, heartbeatMillis,
            e.toString());
      }
    }
  }

  private void heartbeat() throws IOException {
    long confirming = fenceSeq;
    // The NameNode closes a fenced file at the lengths reported: the writes applied before the fence go first.
    if (confirming > confirmedFenceSeq && !sendReceived()) {
      confirming = confirmedFenceSeq;
    }
    MemoryUsage memory = store.memoryUsage();
    long t0 = clock.physicalClock().currentTimeMicros();
    HeartbeatRequestProto.Builder request = HeartbeatRequestProto.newBuilder().setHlc(clock.now().toProto())
        .setDatanodeUuid(id.getDatanodeUuid()).setPhysicalMicros(t0)
        .setCapacityBytes(memory.arenaCapacityBytes())
        .setMemoryUsedBytes(memory.residentPageBytes() + memory.logBytes() + memory.indexBytes())
        .setBlockCount(store.blockReport().size()).setDurableHlc(store.durableFrontier().toProto())
        .setFenceSeq(confirming);
    if (heartbeats++ % DISK_USAGE_EVERY == 0) {
      diskUsage = store.diskUsage();  // one walk of every log: not on every heartbeat
    }
    if (diskUsage != null) {
      request.setSegmentBytes(diskUsage.segmentBytes()).setLiveSegmentBytes(diskUsage.liveBytes())
          .setCurrentBytes(diskUsage.currentBytes());
    }
    ScrubberStatus scrub = store.scrubberStatus();
    request.setScrubPasses(scrub.passes()).setScrubBytesVerified(scrub.bytesVerified())
        .setScrubCorruptions(scrub.corruptions());
    if (scrub.lastCorruption() != null) {
      request.setScrubLastCorruption(scrub.lastCorruption());
    }
    // A slow round trip (the first call sets up the connection) bounds the error too loosely to judge by.
    ClockOffsetFilter.Estimate offset = offsets.best();
    if (offset != null && offset.errorMicros() <= clock.maxOffsetMicros() / 4) {
      request.setMeasuredOffsetMicros(offset.offsetMicros()).setRoundTripMicros(offset.roundTripMicros());
    }
    HeartbeatResponseProto response = call(() -> proxy.heartbeat(null, request.build()));
    confirmedFenceSeq = Math.max(confirmedFenceSeq, confirming);
    measure(t0, response.getNamenodePhysicalMicros());
    merge(response.getHlc());
    if (response.getReregister()) {
      LOG.info("The NameNode at {} does not know this DataNode (it restarted?); registering again", address);
      registered = false;
      register();
      return;
    }
    health.set(response.getHealthy() ? null : response.getUnhealthyReason());
    if (response.hasBlockKeys()) {
      blockKeys.update(response.getBlockKeys());
    }
    response.getTransfersList().forEach(transfers::submit);
    drops.addAll(response.getReplicasToDropList());
    dropReplicas();
    endClosedReplicas(response.getReplicasToEndList());
    // Applied before the next heartbeat goes out: that heartbeat tells the NameNode these fences hold here.
    blockKeys.fences().install(response.getFencesList());
    fenceSeq = maxSeq(fenceSeq, response.getFencesList());
  }

  private static long maxSeq(long seq, List<WriterFenceProto> fences) {
    for (WriterFenceProto fence : fences) {
      seq = Math.max(seq, fence.getSeq());
    }
    return seq;
  }

  /** Ends the pipelines of closed files' blocks whose REPLICA_END never came here, as the NameNode asked. */
  private void endClosedReplicas(List<ReplicaToEndProto> replicas) {
    for (ReplicaToEndProto replica : replicas) {
      try {
        if (store.endClosedReplica(replica.getBlockId(), replica.getLastEntryHlc(), replica.getPipelineEpoch())) {
          standingChanged(replica.getBlockId());
          LOG.info("Ended the write pipeline of block {} here: its file is closed and this replica holds its last"
              + " entry {}, but its writer's end never came", replica.getBlockId(),
              HlcTimestamp.valueOf(replica.getLastEntryHlc()));
        }
      } catch (FffsException e) {
        LOG.warn("Could not end the write pipeline of block {}: {}", replica.getBlockId(), e.getMessage());
      }
    }
  }

  /** Drops the replicas the NameNode asked to drop that are not busy now. */
  private void dropReplicas() {
    for (Long blockId : new ArrayList<>(drops)) {
      try {
        if (store.dropReplica(blockId)) {
          drops.remove(blockId);
          received.forget(blockId);
          LOG.info("Dropped the replica of block {} with its history (the NameNode has enough other replicas)",
              blockId);
        }
      } catch (FffsException e) {
        drops.remove(blockId);
        LOG.warn("Could not drop the replica of block {}: {}", blockId, e.getMessage());
      }
    }
  }

  private void blockReport() throws IOException {
    List<ReportedBlockProto> blocks = new ArrayList<>();
    for (BlockSummary block : store.blockReport()) {
      blocks.add(ReceivedReports.withStanding(block).build());
    }
    for (long quarantined : store.quarantined()) {
      blocks.add(ReportedBlockProto.newBuilder().setBlockId(quarantined).setNumBytes(0).setCorrupt(true).build());
    }
    HlcTimestamp durable = store.durableFrontier();
    merge(call(() -> proxy.blockReport(null, BlockReportRequestProto.newBuilder().setHlc(clock.now().toProto())
        .setDatanodeUuid(id.getDatanodeUuid()).addAllBlocks(blocks).setDurableHlc(durable.toProto()).build()))
        .getHlc());
    lastBlockReportNanos = nanoTime.getAsLong();
    blockReportDue = false;
    receivedLost = false;  // the report holds every write applied before it was built
    LOG.debug("Block report: {} blocks to {}", blocks.size(), address);
  }

  /** A block's new length and last entry after a write; reported in a batch shortly after. */
  public void written(long blockId, long length, HlcTimestamp lastEntryHlc) {
    received.written(blockId, length, lastEntryHlc.packed());
    scheduleReceived();
  }

  /**
   * The replica of {@code blockId} was opened in a write pipeline or its pipeline ended: reported shortly after with
   * where it stands now, so that the NameNode orders an open block's replicas by the newest pipeline at once, not at
   * the next full report.
   */
  public void standingChanged(long blockId) {
    received.standingChanged(blockId);
    scheduleReceived();
  }

  private void scheduleReceived() {
    if (receivedScheduled.compareAndSet(false, true)) {
      try {
        thread.schedule(this::sendScheduledReceived, receivedDelayMillis, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        receivedScheduled.set(false);
      }
    }
  }

  private void sendScheduledReceived() {
    receivedScheduled.set(false);
    sendReceived();
  }

  /**
   * Reports the blocks written since the last report; false when the NameNode has not been told of every write
   * applied so far (this report failed, or one before it did and no full report has carried its blocks since).
   */
  private boolean sendReceived() {
    if (!registered) {
      return false;
    }
    if (!received.isEmpty()) {
      BlockReceivedRequestProto.Builder request = BlockReceivedRequestProto.newBuilder()
          .setDatanodeUuid(id.getDatanodeUuid()).addAllBlocks(received.take(store::summary));
      try {
        merge(call(() -> proxy.blockReceived(null, request.setHlc(clock.now().toProto()).build())).getHlc());
      } catch (IOException | RuntimeException e) {
        // Taken off the pending ones: the next tick's full report carries them.
        LOG.debug("blockReceived to {} failed: {}", address, e.toString());
        receivedLost = true;
        blockReportDue = true;
      }
    }
    return !receivedLost;
  }

  /**
   * The data server's {@link WriteListener}, created before the link (the link needs the server's port) and
   * forwarding to it once it is up.
   */
  public static final class Receiver implements WriteListener {
    private volatile NamenodeLink link;

    @Override
    public void written(long blockId, long blockLength) {
      written(blockId, blockLength, HlcTimestamp.ZERO);
    }

    @Override
    public void written(long blockId, long blockLength, HlcTimestamp lastEntryHlc) {
      NamenodeLink target = link;
      if (target != null) {
        target.written(blockId, blockLength, lastEntryHlc);
      }
    }

    @Override
    public void standingChanged(long blockId) {
      NamenodeLink target = link;
      if (target != null) {
        target.standingChanged(blockId);
      }
    }
  }

  private void pullRetentionQuietly() {
    try {
      retention.pull();
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not fetch or apply the NameNode's retention table (will retry): {}", e.toString());
    }
  }

  /**
   * Fetches and applies the NameNode's retention table now, on the link's thread; returns its generation, or 0 when
   * the store had it already (tests, and callers that just ran a garbage-collection pass).
   */
  public long pullRetention() throws IOException {
    try {
      return thread.submit(retention::pull).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted waiting for the retention table");
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof IOException ? (IOException) e.getCause() : new IOException(e.getCause());
    }
  }

  /** Runs a heartbeat now (tests, and callers that know the NameNode just restarted). */
  public void triggerHeartbeat() {
    thread.execute(this::tick);
  }

  public boolean isRegistered() {
    return registered;
  }

  private interface Rpc<T> {
    T call() throws ServiceException;
  }

  private static <T> T call(Rpc<T> rpc) throws IOException {
    try {
      return rpc.call();
    } catch (ServiceException e) {
      throw RemoteErrors.unwrap(e);
    }
  }

  @Override
  public void close() {
    copier.close();
    transfers.close();
    thread.shutdownNow();
    try {
      thread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    RPC.stopProxy(proxy);
  }

  /** The block copies this DataNode sends for re-replication. */
  public ReplicaTransfers transfers() {
    return transfers;
  }
}
