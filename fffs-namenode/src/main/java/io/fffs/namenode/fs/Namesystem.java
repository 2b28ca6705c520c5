package io.fffs.namenode.fs;

import io.fffs.common.error.FffsException;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.security.BlockTokenConfigKeys;
import io.fffs.common.security.BlockTokenIssuer;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.TimeConfigKeys;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.NameNodeConfigKeys;
import io.fffs.common.security.BlockAccessMode;
import io.fffs.namenode.blocks.DatanodeManager;
import io.fffs.namenode.blocks.Decommissions;
import io.fffs.namenode.blocks.ReplicationMonitor;
import io.fffs.namenode.blocks.Topology;
import io.fffs.namenode.edits.EditLog;
import io.fffs.namenode.edits.Journal;
import io.fffs.namenode.lease.LeaseManager;
import io.fffs.namenode.lease.WriterFencing;
import io.fffs.namenode.namespace.BlockRetention;
import io.fffs.namenode.namespace.GcPass;
import io.fffs.namenode.namespace.GcSteps;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.InodeState;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.namespace.NamespaceApplier;
import io.fffs.namenode.namespace.NamespaceImage;
import io.fffs.namenode.permission.PermissionChecker;
import io.fffs.namenode.safemode.SafeMode;
import io.fffs.namenode.security.BlockKeysOps;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NameNode's state and its one mutation path. A change is validated under the write lock, stamped with one HLC
 * tick, queued to the edit log and applied by {@link NamespaceApplier} (the code that replays it at start-up); it
 * returns a {@link Logged} answer, given once the log has it on disk. Queries run under the read lock as of a limit;
 * a query at a system time first waits until the clock has passed it and every edit up to it is durable (the
 * wait-until-past rule), so its answer never changes — not even across a restart. The operations themselves live in
 * {@link FileOps}, {@link DirectoryOps} and {@link NamespaceQueries}, which this class wires to the paths and the
 * parts of the state they use.
 */
public final class Namesystem implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(Namesystem.class);
  /** Who the block tokens of re-replication copies are issued to (named in a target's refusals). */
  private static final String REPLICATION_USER = "fffs-replication";
  /** In the name directory: the DataNodes being or already decommissioned, one host:port a line. */
  public static final String DECOMMISSIONED_FILE = "decommissioned-datanodes";

  private final HybridLogicalClock clock;
  private final Namespace namespace;
  private final LeaseManager leases;
  private final PermissionChecker permissions;
  private final DatanodeManager datanodes;
  /** Replaced when an HA NameNode takes the lead: it waits for the block reports of the DataNodes that follow it. */
  private volatile SafeMode safeMode;
  private final LongSupplier safeModeClock;
  private final float safeModeThreshold;
  private final long safeModeTimeoutNanos;
  private final NamespaceApplier applier;
  /** The local edit log of a single NameNode; null when the ops go to a Raft log. */
  private final EditLog editLog;
  /** Where the ops go: {@link #editLog}, or the Raft log of highly available NameNodes. */
  private final Journal journal;
  /** Whether this NameNode may change the namespace now; null for a single NameNode, which always may. */
  private final Leadership leadership;
  private final Path current;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final long checkpointTxns;
  private final AtomicBoolean checkpointing = new AtomicBoolean();
  private final ScheduledExecutorService monitor;
  private long lastTxid;
  private HlcTimestamp lastHlc;
  private volatile long checkpointTxid;
  private final RetentionRule defaultRetention;
  private final boolean checkpointAfterGc;
  /** What DataNodes must keep of each block, as of the last garbage-collection pass. */
  private volatile BlockRetention blockRetention;
  /** The units of the namespace one read-lock hold of the replication scan reads, about. */
  private final int scanBudget;
  /** The replication monitor rests at least this many times a scan's duration before the next one. */
  static final int REPLICATION_SCAN_REST = 9;

  public final FileOps files;
  public final DirectoryOps directories;
  public final NamespaceQueries queries;
  /** Retention rules, pins and garbage collection of history. */
  public final HistoryOps history;
  /** Differences of a tree between two moments, and what its present and past hold. */
  public final HistoryQueries historyQueries;
  /** Restores of a file or tree as it was, the DataNodes copying the blocks. */
  public final RestoreOps restores;
  /** The block copies restores wait for, handed to the DataNodes. */
  public final BlockCopies blockCopies = new BlockCopies();
  /** Signs the block access tokens handed out with block locations; its keys go to DataNodes. */
  public final BlockTokenIssuer blockTokens;
  /** fsck: the replicas of every block under a path. */
  public final FsckQueries fsck;
  /** Keeps closed blocks at their files' replication: copies with history, drops of extras. */
  public final ReplicationMonitor replication;
  /** The writer fences lease recovery spreads to the DataNodes (they refuse writers of superseded epochs). */
  public final WriterFencing writerFencing;
  /** The answers of recent changes by IPC client and call id: a retried call is answered, not made again. */
  public final RetryAnswers retryAnswers;

  /**
   * Loads the namespace from {@code nameDir} (formatting it first if it is empty) and starts the edit log.
   *
   * @param nanoTime monotonic time for leases, liveness and safe mode
   */
  public Namesystem(Configuration conf, Path nameDir, HybridLogicalClock clock, LongSupplier nanoTime,
      String superUser) throws IOException {
    this(conf, loadOrFormat(conf, nameDir, superUser), NameStorage.current(nameDir), null, null, clock, nanoTime,
        superUser);
  }

  private static NameStorage.Loaded loadOrFormat(Configuration conf, Path nameDir, String superUser)
      throws IOException {
    if (!NameStorage.isFormatted(nameDir)) {
      NameStorage.format(nameDir, superUser, superGroup(conf));
    }
    return NameStorage.load(nameDir);
  }

  private static String superGroup(Configuration conf) {
    return conf.get(NameNodeConfigKeys.SUPERGROUP_KEY, NameNodeConfigKeys.SUPERGROUP_DEFAULT);
  }

  /**
   * A namesystem of a highly available cluster: its ops go to {@code journal} (a Raft log), changes are taken only
   * while {@code leadership} says this NameNode leads, and the ops other NameNodes made arrive through
   * {@link #applyReplicated}. Starts from {@code image}, or from a new namespace of cluster {@code clusterId} when
   * there is none yet (the same one on every NameNode, so that the first ops apply alike everywhere).
   */
  public static Namesystem replicated(Configuration conf, NamespaceImage.Loaded image, String clusterId,
      java.util.function.LongFunction<Journal> journal, Leadership leadership, HybridLogicalClock clock,
      LongSupplier nanoTime, String superUser) throws IOException {
    NameStorage.Loaded loaded = image != null
        ? new NameStorage.Loaded(image.namespace, image.lastTxid, image.lastHlc, image.lastTxid)
        : new NameStorage.Loaded(Namespace.format(clusterId, superUser, superGroup(conf), (short) 0755), 0,
            HlcTimestamp.ZERO, 0);
    return new Namesystem(conf, loaded, null, journal.apply(loaded.lastTxid), leadership, clock, nanoTime,
        superUser);
  }

  private Namesystem(Configuration conf, NameStorage.Loaded loaded, Path current, Journal replicatedJournal,
      Leadership leadership, HybridLogicalClock clock, LongSupplier nanoTime, String superUser) throws IOException {
    this.clock = clock;
    this.leadership = leadership;
    this.retryAnswers = RetryAnswers.fromConf(conf);
    for (NameStorage.LoggedCall call : loaded.replayedCalls) {
      retryAnswers.recordMadeElsewhere(call.clientId(), call.callId());
    }
    this.blockTokens = new BlockTokenIssuer(conf, clock.physicalClock());
    this.writerFencing = new WriterFencing(blockTokens.enabled(), blockTokens.lifetimeMillis(),
        () -> clock.physicalClock().currentTimeMicros() / 1000);
    String superGroup = superGroup(conf);
    this.namespace = loaded.namespace;
    this.applier = new NamespaceApplier(namespace);
    this.lastTxid = loaded.lastTxid;
    this.lastHlc = loaded.lastHlc;
    this.checkpointTxid = loaded.imageTxid;
    clock.observe(loaded.lastHlc);  // every new stamp follows everything already logged
    this.current = current;
    this.editLog = replicatedJournal == null ? new EditLog(current, lastTxid + 1) : null;
    this.journal = replicatedJournal == null ? editLog : replicatedJournal;
    this.checkpointTxns = conf.getLong(NameNodeConfigKeys.CHECKPOINT_TXNS_KEY,
        NameNodeConfigKeys.CHECKPOINT_TXNS_DEFAULT);
    this.permissions = new PermissionChecker(
        conf.getBoolean(NameNodeConfigKeys.PERMISSIONS_ENABLED_KEY, NameNodeConfigKeys.PERMISSIONS_ENABLED_DEFAULT),
        superUser, superGroup);
    this.leases = new LeaseManager(nanoTime,
        millisToNanos(NameNodeConfigKeys.millis(conf, NameNodeConfigKeys.LEASE_SOFT_LIMIT_KEY,
            NameNodeConfigKeys.LEASE_SOFT_LIMIT_DEFAULT_MS)),
        millisToNanos(NameNodeConfigKeys.millis(conf, NameNodeConfigKeys.LEASE_HARD_LIMIT_KEY,
            NameNodeConfigKeys.LEASE_HARD_LIMIT_DEFAULT_MS)));
    this.datanodes = new DatanodeManager(nanoTime,
        millisToNanos(NameNodeConfigKeys.millis(conf, NameNodeConfigKeys.DATANODE_DEAD_INTERVAL_KEY,
            NameNodeConfigKeys.DATANODE_DEAD_INTERVAL_DEFAULT_MS)),
        TimeConfigKeys.maxOffsetMicros(conf));
    this.safeModeClock = nanoTime;
    this.safeModeThreshold = conf.getFloat(NameNodeConfigKeys.SAFEMODE_THRESHOLD_KEY,
        NameNodeConfigKeys.SAFEMODE_THRESHOLD_DEFAULT);
    this.safeModeTimeoutNanos = millisToNanos(NameNodeConfigKeys.millis(conf, NameNodeConfigKeys.SAFEMODE_TIMEOUT_KEY,
        NameNodeConfigKeys.SAFEMODE_TIMEOUT_DEFAULT_MS));
    this.safeMode = new SafeMode(liveBlocksAndLeases(), safeModeThreshold, safeModeTimeoutNanos, nanoTime);
    datanodes.onBlockReported(blockId -> safeMode.reported(blockId));
    datanodes.setTopology(Topology.fromConf(conf));
    datanodes.setExpectedLastEntries(blockId -> namespace.lastEntries().get(blockId));
    // with several NameNodes the list goes through the log, so that a new leader keeps it (docs/ha.md)
    datanodes.setDecommissions(replicatedJournal != null ? new Decommissions(new Decommissions.Replicated() {
      @Override
      public List<String> current() {
        return namespace.decommissioned();
      }

      @Override
      public boolean replace(List<String> expected, List<String> next) throws IOException {
        return replaceDecommissioned(expected, next);
      }
    }) : new Decommissions(current == null ? null : current.getParent().resolve(DECOMMISSIONED_FILE)));
    this.replication = new ReplicationMonitor(datanodes, nanoTime,
        millisToNanos(NameNodeConfigKeys.millis(conf, NameNodeConfigKeys.REPLICATION_DEAD_INTERVAL_KEY,
            NameNodeConfigKeys.REPLICATION_DEAD_INTERVAL_DEFAULT_MS)),
        millisToNanos(NameNodeConfigKeys.millis(conf, NameNodeConfigKeys.REPLICATION_PENDING_TIMEOUT_KEY,
            NameNodeConfigKeys.REPLICATION_PENDING_TIMEOUT_DEFAULT_MS)),
        conf.getInt(NameNodeConfigKeys.REPLICATION_MAX_STREAMS_KEY, NameNodeConfigKeys.REPLICATION_MAX_STREAMS_DEFAULT),
        blockId -> blockTokens.enabled()
            ? blockTokens.issue(blockId, BlockAccessMode.WRITE, REPLICATION_USER).toProto() : null);
    this.defaultRetention = RetentionRule.parse(conf.get(NameNodeConfigKeys.HISTORY_DEFAULT_RULE_KEY,
        NameNodeConfigKeys.HISTORY_DEFAULT_RULE_DEFAULT));
    this.checkpointAfterGc = conf.getBoolean(NameNodeConfigKeys.HISTORY_GC_CHECKPOINT_KEY,
        NameNodeConfigKeys.HISTORY_GC_CHECKPOINT_DEFAULT);
    this.blockRetention = BlockRetention.compute(namespace);
    this.scanBudget = Math.max(1, conf.getInt(NameNodeConfigKeys.HISTORY_GC_BATCH_INODES_KEY,
        NameNodeConfigKeys.HISTORY_GC_BATCH_INODES_DEFAULT));
    LockedPaths paths = new LockedPaths();
    Horizon horizon = new Horizon(namespace, () -> defaultRetention, this::nowMicros);
    this.files = new FileOps(paths, namespace, permissions, leases, datanodes, writerFencing,
        NameNodeConfigKeys.millis(conf, NameNodeConfigKeys.WRITER_FENCE_TIMEOUT_KEY,
            NameNodeConfigKeys.WRITER_FENCE_TIMEOUT_DEFAULT_MS),
        // At most half the IPC handlers wait for recoverLease fences (none with one handler): the others serve
        // the heartbeats that confirm them.
        conf.getInt(NameNodeConfigKeys.RPC_HANDLERS_KEY, NameNodeConfigKeys.RPC_HANDLERS_DEFAULT) / 2);
    this.directories = new DirectoryOps(paths, namespace, permissions, leases);
    this.queries = new NamespaceQueries(paths, namespace, permissions, leases, datanodes, horizon,
        () -> lastHlc.packed(), scanBudget);
    this.history = new HistoryOps(paths, paths, namespace, permissions, horizon, () -> defaultRetention,
        this::nowMicros, applier::lastGcResult, conf.getInt(NameNodeConfigKeys.HISTORY_GC_BATCH_INODES_KEY,
        NameNodeConfigKeys.HISTORY_GC_BATCH_INODES_DEFAULT));
    this.historyQueries = new HistoryQueries(paths, namespace, permissions, horizon);
    this.fsck = new FsckQueries(paths, namespace, permissions, datanodes, horizon);
    this.restores = new RestoreOps(paths, paths, namespace, permissions, horizon, datanodes, leases, blockCopies,
        millisToNanos(NameNodeConfigKeys.millis(conf, NameNodeConfigKeys.HISTORY_RESTORE_TIMEOUT_KEY,
            NameNodeConfigKeys.HISTORY_RESTORE_TIMEOUT_DEFAULT_MS)), nanoTime);
    this.monitor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "fffs-namenode-monitor");
      thread.setDaemon(true);
      return thread;
    });
    monitor.scheduleWithFixedDelay(this::recoverHardExpiredLeases, 1, 1, TimeUnit.SECONDS);
    long replicationMs = NameNodeConfigKeys.millis(conf, NameNodeConfigKeys.REPLICATION_INTERVAL_KEY,
        NameNodeConfigKeys.REPLICATION_INTERVAL_DEFAULT_MS);
    // The scan reads every file: paced so that it takes at most a tenth of the monitor's time on a large namespace;
    // copies go on at the interval in its rests.
    PacedSchedule.start(monitor, this::scanReplication, this::topUpReplication,
        TimeUnit.MILLISECONDS.toNanos(replicationMs), REPLICATION_SCAN_REST,
        System::nanoTime);  // the real time a scan took, whatever clock the tests inject
    long gcIntervalMs = NameNodeConfigKeys.millis(conf, NameNodeConfigKeys.HISTORY_GC_INTERVAL_KEY,
        NameNodeConfigKeys.HISTORY_GC_INTERVAL_DEFAULT_MS);
    if (gcIntervalMs > 0) {
      monitor.scheduleWithFixedDelay(this::collectOnSchedule, gcIntervalMs, gcIntervalMs, TimeUnit.MILLISECONDS);
    }
    if (blockTokens.enabled()) {
      keepBlockKeys(BlockTokenConfigKeys.keyUpdateIntervalMillis(conf));
    }
    LOG.info("Namespace loaded: {} inodes, last txid {}, last HLC {}", namespace.inodeCount(), lastTxid, lastHlc);
  }

  /**
   * Signs with the block keys the previous run logged (tokens handed out before a restart stay valid), logs each
   * new set before it is used, and rolls from the monitor instead of inside token requests (which may hold the
   * namesystem lock that logging needs).
   */
  private void keepBlockKeys(long intervalMillis) throws IOException {
    if (leadership == null) {
      keptBlockKeys();
      rollBlockKeysIfDue();
    }
    long checkMillis = Math.max(10, Math.min(60_000, intervalMillis / 10));
    monitor.scheduleWithFixedDelay(() -> {
      try {
        if (leadership == null) {
          rollBlockKeysIfDue();
        } else {
          keepBlockKeysWhileLeading();
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("Could not roll the block-token keys (the current key goes on signing): {}", e.toString());
      }
    }, checkMillis, checkMillis, TimeUnit.MILLISECONDS);
  }

  private void keptBlockKeys() throws IOException {
    blockTokens.keepIn(keys -> logSecret(EditOpProto.newBuilder().setBlockKeys(BlockKeysOps.toOp(keys)).build()),
        query(() -> BlockKeysOps.fromOp(namespace.delegation().blockKeys())));
  }

  /** HA: something else that follows the lead (the delegation-token secrets). */
  public interface LeadFollower {
    /** This NameNode takes the lead and has applied every committed op; it serves as leader once this returns. */
    void taking() throws IOException;

    /** This NameNode serves as leader (runs on the monitor thread: it may log). */
    void leading();
  }

  private final java.util.List<LeadFollower> leadFollowers = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** HA: {@code follower} is told each time this NameNode takes the lead. */
  public void addLeadFollower(LeadFollower follower) {
    leadFollowers.add(follower);
  }

  /** HA: called once this NameNode is the ready leader; it keeps the block keys at once rather than at the next check. */
  public void leading() {
    for (LeadFollower follower : leadFollowers) {
      monitor.execute(follower::leading);
    }
    if (blockTokens.enabled()) {
      monitor.execute(() -> {
        try {
          keepBlockKeysWhileLeading();
        } catch (IOException | RuntimeException e) {
          LOG.warn("Could not log the block-token keys (the next check tries again): {}", e.toString());
        }
      });
    }
  }

  /** HA: whether this NameNode's block keys are the logged ones since it last took the lead. */
  private volatile boolean blockKeysKept;

  /**
   * HA: only the leader logs and rolls block keys; every NameNode applies them, and a new leader signs with the
   * logged ones, so tokens the old leader handed out stay valid on the DataNodes after a failover.
   */
  private void keepBlockKeysWhileLeading() throws IOException {
    try {
      leadership.checkLeader("keep the block-token keys");
    } catch (FffsException notLeader) {
      blockKeysKept = false;
      return;
    }
    if (!blockKeysKept) {
      keptBlockKeys();
      blockKeysKept = true;
    }
    rollBlockKeysIfDue();
  }

  private void rollBlockKeysIfDue() throws IOException {
    if (blockTokens.rollDue()) {
      blockTokens.roll();
    }
  }

  private static long millisToNanos(long millis) {
    return TimeUnit.MILLISECONDS.toNanos(millis);
  }

  /** The last block of every file being written: where it was placed may be all a new leader can know of it. */
  private Set<Long> lastBlocksBeingWritten() {
    Set<Long> blocks = new HashSet<>();
    for (Inode inode : namespace.inodes()) {
      InodeState state = inode.latest();
      if (!state.isDirectory() && state.isUnderConstruction() && state.blockCount() > 0) {
        blocks.add(state.blockId(state.blockCount() - 1));
      }
    }
    return blocks;
  }

  /**
   * Block ids of every file's newest state (safe mode waits for them), but the last block of an open file in which
   * no hsync was recorded: its writer may have died before any DataNode made a byte of it durable, so no DataNode
   * may ever report it. Re-grants leases of open files.
   */
  private Set<Long> liveBlocksAndLeases() {
    Set<Long> blocks = new HashSet<>();
    for (Inode inode : namespace.inodes()) {
      InodeState state = inode.latest();
      if (state.isDirectory()) {
        continue;
      }
      for (int i = 0; i < state.blockCount(); i++) {
        boolean unsyncedTail = state.isUnderConstruction() && i == state.blockCount() - 1
            && state.blockLength(i) == 0;
        if (!unsyncedTail) {
          blocks.add(state.blockId(i));
        }
      }
    }
    // Leases go back only to open files a path reaches: a file deleted or overwritten while open stays open in its
    // history, but its writer lost the lease then, and must not go on changing a file no path reaches.
    namespace.forEachLatestFile(namespace.root(), file -> {
      if (file.latest().isUnderConstruction()) {
        leases.add(file.latest().leaseHolder(), file.id());
      }
    });
    return blocks;
  }

  /** The mutation and query paths as the operations see them; each call runs on this namesystem's lock and log. */
  private final class LockedPaths implements MutationPath, QueryPath {
    @Override
    public <T> Logged<T> mutate(String what, Change<T> change) throws IOException {
      return Namesystem.this.mutate(what, change);
    }

    @Override
    public HlcTimestamp log(EditOpProto op) throws FffsException {
      return Namesystem.this.log(op);
    }

    @Override
    public <T> T query(Read<T> read) throws IOException {
      return Namesystem.this.query(read);
    }

    @Override
    public long limitFor(TimeSpec time, String subject) throws IOException {
      return Namesystem.this.limitFor(time, subject);
    }
  }

  /**
   * Runs one change: validated, stamped, logged and applied under the write lock. Returns at once, without waiting
   * for the fsync: its answer waits on the last txid logged so far, which covers a change that logged nothing but
   * answered from another's edit not yet on disk.
   */
  private <T> Logged<T> mutate(String what, MutationPath.Change<T> change) throws IOException {
    if (leadership != null) {
      leadership.checkLeader(what);
    }
    safeMode.checkOff(what);
    T result;
    long durableAt;
    lock.writeLock().lock();
    try {
      if (leadership != null) {
        leadership.checkLeader(what);  // again under the lock: the lead may have moved while this change waited
      }
      long txidBefore = lastTxid;
      long inodeIds = namespace.nextInodeId();
      long blockIds = namespace.nextBlockId();
      try {
        result = change.run();
      } catch (IOException | RuntimeException e) {
        if (lastTxid == txidBefore) {
          namespace.giveBackIds(inodeIds, blockIds);  // a failed change that logged nothing allocated nothing
        }
        throw e;
      }
      durableAt = lastTxid;
    } finally {
      lock.writeLock().unlock();
      journal.flush();
    }
    maybeCheckpoint();
    return new Logged<>(result, durableAt, journal);
  }

  /**
   * Logs a change of the delegation-token secrets and waits until it is on disk. Not a namespace change, so also
   * in safe mode: the token secret manager rolls its keys from the moment the NameNode starts.
   */
  public void logSecret(EditOpProto op) throws IOException {
    if (leadership != null) {
      leadership.checkLeader("log a delegation-token secret");  // a follower's append would fail and reload it
    }
    long txid;
    lock.writeLock().lock();
    try {
      log(op);
      txid = lastTxid;
    } finally {
      lock.writeLock().unlock();
      journal.flush();
    }
    new Logged<Void>(null, txid, journal).await();
  }

  /**
   * Logs {@code next} as the list of DataNodes decommissioned, if it is still {@code expected}, and waits until the
   * change is durable (HA: {@link Decommissions.Replicated}). Also in safe mode, as without HA.
   */
  boolean replaceDecommissioned(List<String> expected, List<String> next) throws IOException {
    if (leadership != null) {
      leadership.checkLeader("decommission DataNodes");
    }
    long txid;
    lock.writeLock().lock();
    try {
      if (leadership != null) {
        leadership.checkLeader("decommission DataNodes");
      }
      if (!namespace.decommissioned().equals(expected)) {
        return false;
      }
      log(EditOpProto.newBuilder().setDecommissions(
          io.fffs.common.proto.NamenodeEditsProtos.DecommissionsOp.newBuilder().addAllNodes(next)).build());
      txid = lastTxid;
    } finally {
      lock.writeLock().unlock();
      journal.flush();
    }
    new Logged<Void>(null, txid, journal).await();
    return true;
  }

  /** The delegation-token secrets as loaded and logged (read at start, before the secret manager runs). */
  public io.fffs.namenode.namespace.DelegationState delegationState() throws IOException {
    return query(namespace::delegation);
  }

  /** Reads the delegation-token secrets as logged, under the read lock (HA: as every NameNode applied them). */
  public <T> T readSecrets(java.util.function.Function<io.fffs.namenode.namespace.DelegationState, T> read)
      throws IOException {
    return query(() -> read.apply(namespace.delegation()));
  }

  /** Edit-log batches synced since start (each an fsync'd group of changes). */
  public long editBatchesSynced() {
    return journal.batchesSynced();
  }

  /**
   * Applies an op another NameNode stamped and the Raft log committed (or the log replays at start): skipped when
   * this NameNode made it (it applied it when it stamped it), else it must be the next txid. Returns whether it
   * was applied here.
   */
  public boolean applyReplicated(long txid, HlcTimestamp hlc, EditOpProto op) throws IOException {
    return applyReplicated(txid, hlc, () -> op);
  }

  /** An op of the Raft log, parsed only when it is applied here. */
  public interface ReplicatedOp {
    EditOpProto parse() throws IOException;
  }

  /** {@link #applyReplicated(long, HlcTimestamp, EditOpProto)} parsing {@code op} only if it is applied here. */
  public boolean applyReplicated(long txid, HlcTimestamp hlc, ReplicatedOp op) throws IOException {
    if (txid <= journal.lastQueuedTxid()) {
      return false;  // read without the lock: the commit of the leader's own op must not wait for its write lock
    }
    applyOthers(txid, hlc, op);
    return true;
  }

  /**
   * Applies {@code op}, which the caller found is not this NameNode's own: it must be the next txid here, else
   * (this NameNode stamped an op of its own under that txid meanwhile) the namespace and the log disagree.
   */
  public void applyOthers(long txid, HlcTimestamp hlc, ReplicatedOp op) throws IOException {
    lock.writeLock().lock();
    try {
      if (txid != lastTxid + 1) {
        throw new FffsException(io.fffs.common.error.ErrorCode.CORRUPT, "replicated txid " + txid
            + " does not follow " + lastTxid + ": the Raft log and the namespace disagree");
      }
      clock.observe(hlc);  // this NameNode's own stamps, once it leads, follow every one it applied
      EditOpProto parsed = op.parse();
      applier.apply(parsed, hlc);
      if (parsed.hasAddBlock()) {
        // Where the leader placed the block, kept should this NameNode lead while it is written: an empty block is
        // in no DataNode's report until its first write, and a writer whose addBlock answer a failover lost asks
        // the new leader for the block again (addedBefore).
        List<String> uuids = new ArrayList<>();
        uuids.add(parsed.getAddBlock().getDatanodeUuid());
        uuids.addAll(parsed.getAddBlock().getReplicaDatanodeUuidsList());
        datanodes.placed(parsed.getAddBlock().getBlockId(), uuids);
      }
      lastTxid = txid;
      lastHlc = hlc;
    } finally {
      lock.writeLock().unlock();
    }
  }

  /** An action run while no change is made. */
  public interface Paused<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code action} once every op applied here is durable, holding the write lock so that no change is stamped
   * meanwhile: a leader hands over the lead this way with nothing uncommitted, so it need not reload.
   */
  public <T> T whilePaused(Paused<T> action) throws IOException {
    lock.writeLock().lock();
    try {
      journal.awaitSynced(lastTxid);
      return action.run();
    } finally {
      lock.writeLock().unlock();
    }
  }

  /**
   * Saves the namespace as an image to {@code target} if every op it holds is durable (on a leader, ops it stamped
   * may not be committed yet: an image of them could hold a change the cluster never made); returns the txid of
   * the image, or -1 when it was not saved.
   */
  public long saveImageIfSettled(Path target) throws IOException {
    lock.writeLock().lock();
    return saveImageLocked(target);
  }

  /**
   * {@link #saveImageIfSettled}, but -1 at once when a change or a pause holds the write lock: the Raft state machine
   * thread must never wait for it, since {@link #whilePaused} holds it until that thread reports a commit.
   */
  public long trySaveImageIfSettled(Path target) throws IOException {
    if (!lock.writeLock().tryLock()) {
      return -1;
    }
    return saveImageLocked(target);
  }

  /** Saves the image as {@link #saveImageIfSettled} says, the write lock held by the caller (released here). */
  private long saveImageLocked(Path target) throws IOException {
    long txid;
    HlcTimestamp hlc;
    try {
      if (!journal.isSynced(lastTxid)) {
        return -1;
      }
      txid = lastTxid;
      hlc = lastHlc;
      lock.readLock().lock();  // downgrade: changes wait, queries go on
    } finally {
      lock.writeLock().unlock();
    }
    try {
      NamespaceImage.saveAs(namespace, txid, hlc, target);
      return txid;
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Called when this NameNode has become the leader and applied every committed op: gives the writers of open
   * files their leases here (their clients renew them from now on) and waits in safe mode for the block reports of
   * the DataNodes, which follow the leader and report to it now.
   */
  public void takeLeadership() throws IOException {
    lock.writeLock().lock();
    try {
      blockKeysKept = false;
      // sign with the keys the log holds at once; the monitor keeps them (logs a first set, rolls) once this leads
      blockTokens.adopt(BlockKeysOps.fromOp(namespace.delegation().blockKeys()));
      datanodes.forgetAll(lastBlocksBeingWritten());
      replication.reset();
      safeMode = new SafeMode(liveBlocksAndLeases(), safeModeThreshold, safeModeTimeoutNanos, safeModeClock, true);
    } finally {
      lock.writeLock().unlock();
    }
    for (LeadFollower follower : leadFollowers) {
      follower.taking();
    }
  }

  /**
   * Stamps, logs and applies one op. Caller holds the write lock and has validated the op, and flushes the journal
   * once it released the lock.
   */
  private HlcTimestamp log(EditOpProto op) throws FffsException {
    HlcTimestamp hlc = clock.tick();
    long txid = lastTxid + 1;
    journal.append(txid, hlc, op);
    lastTxid = txid;
    lastHlc = hlc;
    applier.apply(op, hlc);
    return hlc;
  }

  /** Runs a query under the read lock. */
  private <T> T query(QueryPath.Read<T> read) throws IOException {
    lock.readLock().lock();
    try {
      return read.run();
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * The lookup limit for {@code time}: the latest state for {@code LATEST} and user times (the namespace is
   * resolved at the current time then), else the wait-until-past rule and the packed-HLC limit of {@code t}.
   */
  private long limitFor(TimeSpec time, String subject) throws IOException {
    if (time.kind() != TimeSpec.Kind.SYSTEM) {
      return Namespace.LATEST;
    }
    try {
      clock.awaitPast(time.micros(), subject);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for " + time);
    }
    // Every op stamped at or before the time has ticked by now, but one may still be between its tick and its
    // append, under the write lock: taking the read lock waits it out, so the txid read here covers it. Reading the
    // txid without the lock could answer with a change that is not yet on disk, and a crash would then change the
    // answer.
    long txid;
    lock.readLock().lock();
    try {
      txid = journal.lastQueuedTxid();
    } finally {
      lock.readLock().unlock();
    }
    journal.awaitSynced(txid);
    return Namespace.limitForMicros(time.micros());
  }

  /** Writes a checkpoint now: rolls the edit log and saves the namespace as of its last txid. */
  public Path checkpoint() throws IOException {
    if (editLog == null) {
      throw new FffsException(io.fffs.common.error.ErrorCode.UNSUPPORTED, "the NameNodes of a highly available"
          + " cluster checkpoint by Raft snapshots (fffs.ha.snapshot.txns)");
    }
    lock.writeLock().lock();
    long txid;
    HlcTimestamp hlc;
    try {
      editLog.roll();
      txid = lastTxid;
      hlc = lastHlc;
      lock.readLock().lock();  // downgrade: changes wait, queries go on
    } finally {
      lock.writeLock().unlock();
    }
    try {
      Path image = NamespaceImage.save(namespace, txid, hlc, current);
      checkpointTxid = txid;
      NameStorage.purge(current);
      LOG.info("Checkpoint {} written at txid {}", image.getFileName(), txid);
      return image;
    } finally {
      lock.readLock().unlock();
    }
  }

  private void maybeCheckpoint() {
    if (editLog == null  // a Raft log: its snapshots are the checkpoints
        || lastTxidVolatile() - checkpointTxid < checkpointTxns || !checkpointing.compareAndSet(false, true)) {
      return;
    }
    try {
      checkpoint();
    } catch (IOException e) {
      LOG.error("Automatic checkpoint failed; will retry after more transactions", e);
    } finally {
      checkpointing.set(false);
    }
  }

  private long lastTxidVolatile() {
    return journal.lastQueuedTxid();
  }

  /** Now, for retention: the HLC's physical part (what a garbage-collection op is stamped with). */
  private long nowMicros() {
    return clock.now().physicalMicros();
  }

  private void collectOnSchedule() {
    try {
      if (!safeMode.isOn() && history.anyBoundedRule()) {
        collectHistory(null);
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("Garbage collection of history failed; will retry", e);
    }
  }

  /**
   * Runs a garbage-collection pass ({@code caller} null: the schedule's), then forgets the leases of files it
   * removed, publishes the blocks' retention to the DataNodes and, if it dropped anything, writes a checkpoint so
   * that the edits before it can go too.
   */
  public GcPass.Result collectHistory(io.fffs.namenode.permission.Caller caller) throws IOException {
    GcPass.Result result = history.collect(caller);
    lock.readLock().lock();
    try {
      result.removedInodeIds().forEach(leases::remove);
    } finally {
      lock.readLock().unlock();
    }
    publish(history.retentionTable());
    LOG.info("History garbage collection: {} inodes removed, {} versions and {} names dropped; read in {}",
        result.inodesRemoved(), result.versionsDropped(), result.namesDropped(), history.lastReadHolds());
    if (result.droppedAnything() && checkpointAfterGc) {
      checkpoint();
    }
    return result;
  }

  /** Makes {@code table} the one DataNodes fetch unless a newer pass's is there already (passes may end together). */
  private synchronized void publish(BlockRetention table) {
    if (table != null && table.generation() >= blockRetention.generation()) {
      blockRetention = table;
    }
  }

  /** What DataNodes must keep of each block, as of the last garbage-collection pass. */
  public BlockRetention blockRetention() {
    return blockRetention;
  }

  /** The newest last entry writers reported for {@code blockId} (packed HLC), or 0 (none, or collected). */
  public long expectedLastEntry(long blockId) {
    return namespace.lastEntries().get(blockId);
  }

  /**
   * One pass of the replication monitor over the blocks of every file a path reaches but the last block of a file
   * being written, and over the blocks only past versions list (of deleted files, or cut from a file), which past
   * reads still reach until garbage collection drops those versions (not in safe mode). The namespace is read in
   * read-lock holds of about {@code fffs.history.gc.batch-inodes} units ({@link ReplicationScan}), so changes go on
   * between them. Tests call it directly.
   */
  void scanReplication() {
    try {
      if (safeMode.isOn() || !leads()) {
        return;
      }
      ReplicationScan scan = new ReplicationScan(namespace, () -> lastHlc.packed(),
          blockId -> datanodes.corruptReplicas(blockId) > 0);
      GcSteps.run(scan, scanBudget, step -> query(step::run));
      replication.scan(scan.wants(), scan.open(), scan.gcDropsAtStart());
    } catch (IOException | RuntimeException e) {
      LOG.warn("Replication scan failed; will retry", e);
    }
  }

  /**
   * Between scans: more copies for the blocks the last scan found short ({@link ReplicationMonitor#topUp}) but those
   * of files being written, unless history collection dropped anything since it began. Tests call it directly.
   */
  void topUpReplication() {
    try {
      if (safeMode.isOn() || !leads()) {
        return;
      }
      long[] gcDrops = new long[1];
      Set<Long> writing = query(() -> {
        gcDrops[0] = namespace.gcDrops();
        Set<Long> blocks = new HashSet<>();
        for (long inodeId : leases.files()) {
          Inode file = namespace.inode(inodeId);
          InodeState state = file == null ? null : file.latest();
          for (int b = 0; state != null && b < state.blockCount(); b++) {
            blocks.add(state.blockId(b));
          }
        }
        return blocks;
      });
      replication.topUp(gcDrops[0], writing::contains);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Replication copies between scans failed; the next scan schedules them", e);
    }
  }

  /** Whether this NameNode leads (or is the only one): DataNodes report to the leader, so only it keeps replicas. */
  private boolean leads() {
    if (leadership == null) {
      return true;
    }
    try {
      leadership.checkLeader("replication");
      return true;
    } catch (FffsException notLeader) {
      return false;
    }
  }

  private void recoverHardExpiredLeases() {
    try {
      for (long inodeId : leasesToRecover()) {
        files.recoverHardExpiredLease(inodeId).await();
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("Lease recovery failed; will retry", e);
    }
  }

  private java.util.List<Long> leasesToRecover() throws IOException {
    return query(leases::hardExpiredFiles);
  }

  public HybridLogicalClock clock() {
    return clock;
  }

  /** Whether this NameNode may serve now: null for a single NameNode, which always may. */
  public Leadership leadership() {
    return leadership;
  }

  /** The writer epoch the WRITE tokens of {@code clientName} for file {@code fileId} carry (0 without its lease). */
  public long writerEpoch(long fileId, String clientName) throws IOException {
    return query(() -> files.writerEpoch(fileId, clientName));
  }

  /** The writers' leases (for tests: who holds which file). */
  LeaseManager leases() {
    return leases;
  }

  public DatanodeManager datanodes() {
    return datanodes;
  }

  public SafeMode safeMode() {
    return safeMode;
  }

  /** Enters safe mode by hand ({@code true}) or leaves it: the superuser's ({@code bin/fffs admin}, SafeMode). */
  public void changeSafeMode(io.fffs.namenode.permission.Caller caller, boolean enter) throws FffsException {
    permissions.checkSuperUser(caller, "change safe mode");
    if (enter) {
      safeMode.enter("entered by " + caller.user());
    } else {
      safeMode.leave("left by " + caller.user());
    }
  }

  public String clusterId() {
    return namespace.clusterId();
  }

  public long lastTxid() {
    return journal.lastQueuedTxid();
  }

  public int inodeCount() throws IOException {
    return query(namespace::inodeCount);
  }

  public long blockCount() {
    return namespace.nextBlockId() - 1;
  }

  @Override
  public void close() throws IOException {
    monitor.shutdownNow();
    retryAnswers.close();
    journal.close();
  }
}
