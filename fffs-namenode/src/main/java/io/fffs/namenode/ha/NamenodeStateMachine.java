package io.fffs.namenode.ha;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.namenode.edits.Journal;
import io.fffs.namenode.fs.Leadership;
import io.fffs.namenode.fs.Namesystem;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.namespace.NamespaceImage;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import java.io.File;
import java.io.IOException;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A NameNode as a Raft state machine. The leader applies each op when it stamps it (the one mutation path: validate,
 * stamp, log, apply under the write lock) and appends it to the Raft log; every NameNode then applies the committed
 * entries in log order ({@link Namesystem#applyReplicated}), the leader skipping its own. A snapshot is the namespace
 * image at the last applied entry; a NameNode that starts loads the newest one and Raft replays the entries after it.
 *
 * <p>Leadership: a NameNode takes changes only as the ready leader (it has applied every entry of earlier terms).
 * When it stops leading while ops it applied wait for a commit — or a snapshot from the leader replaces its state —
 * its namespace may hold changes the cluster never made: {@code onStale} is told, and the NameNode reloads from its
 * snapshot and the committed log. It never acknowledges such ops: answers wait for their commit.
 *
 * <p>Follower reads: the committed ops are applied in log order, and their stamps grow with the log, so once a
 * NameNode has applied the committed op stamped {@code h} it holds every op stamped before {@code h}: a query at a
 * system time whose physical part is below {@code h}'s answers here exactly as on the leader ({@link #checkReadable}).
 *
 * <p>Latest-state reads: the leader answers them only while it holds its {@link ReadLease} (a majority answered it
 * within less than an election timeout), so a leader cut off from the others stops answering them before another
 * can be elected, and stops leading once Ratis steps it down ({@link #notifyNotLeader}).
 */
final class NamenodeStateMachine extends BaseStateMachine implements Leadership {
  private static final Logger LOG = LoggerFactory.getLogger(NamenodeStateMachine.class);

  /** Builds the namesystem from a loaded image (null: a new namespace) once the Raft storage is known. */
  public interface Loader {
    Namesystem load(NamespaceImage.Loaded image, Journal journal, Leadership leadership) throws IOException;
  }

  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final String nameservice;
  private final Loader loader;
  private final Runnable onStale;
  private volatile Namesystem namesystem;
  private volatile RatisJournal journal;
  private volatile RaftPeerId leader;
  private volatile boolean ready;
  private volatile boolean leading;
  /** Ratis stepped this leader down; whether it must reload is decided once it hears of the next leader. */
  private volatile boolean deposed;
  private final ReadLease readLease;
  /** How long a latest-state read waits for the lease to be renewed before it is refused. */
  private final long leaseWaitNanos;
  /** Set once this namespace may hold ops the cluster did not commit; the NameNode then reloads. */
  private volatile boolean stale;
  /** Whether this NameNode answers queries of past system times while it follows ({@code fffs.ha.follower-reads}). */
  private final boolean followerReads;
  /** The packed HLC of the last committed op applied here: the frontier of follower reads. */
  private volatile long committedHlc;
  private final java.util.concurrent.atomic.LongAdder pastReadsServed = new java.util.concurrent.atomic.LongAdder();

  NamenodeStateMachine(String nameservice, Loader loader, Runnable onStale, boolean followerReads,
      ReadLease readLease, long leaseWaitNanos) {
    this.nameservice = nameservice;
    this.loader = loader;
    this.onStale = onStale;
    this.followerReads = followerReads;
    this.readLease = readLease;
    this.leaseWaitNanos = leaseWaitNanos;
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
    super.initialize(server, groupId, raftStorage);
    storage.init(raftStorage);
    SingleFileSnapshotInfo snapshot = storage.loadLatestSnapshot();
    NamespaceImage.Loaded image = null;
    if (snapshot != null) {
      File file = snapshot.getFile().getPath().toFile();
      if (snapshot.getFile().getFileDigest() != null) {
        MD5FileUtil.verifySavedMD5(file, snapshot.getFile().getFileDigest());
      }
      image = NamespaceImage.load(file.toPath());
      updateLastAppliedTermIndex(snapshot.getTermIndex());
      LOG.info("Loaded snapshot {} (txid {})", file.getName(), image.lastTxid);
    }
    long lastTxid = image == null ? 0 : image.lastTxid;
    committedHlc = image == null ? 0 : image.lastHlc.packed();
    journal = new RatisJournal(server, groupId, server.getId(), lastTxid, this::stale);
    namesystem = loader.load(image, journal, this);
  }

  Namesystem namesystem() {
    return namesystem;
  }

  @Override
  public SimpleStateMachineStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    if (stale) {
      // Its namespace is being loaded again from the snapshot and the log: nothing more is applied to this one.
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      return CompletableFuture.completedFuture(Message.EMPTY);
    }
    try {
      HaEntry last = null;
      for (HaEntry op : HaEntry.decodeAll(entry.getStateMachineLogEntry().getLogData())) {
        // Decided once: a handler of this NameNode may stamp an op under this txid right after the read.
        boolean mine = op.txid() <= journal.lastQueuedTxid();
        if (mine && !journal.appendedHere(op.txid(), op.hlc())) {
          // Another leader's op under a txid this NameNode gave an op of its own that was never committed:
          // applying the entries after it here would mix two histories.
          LOG.warn("Committed txid {} is another leader's op, not the one this NameNode stamped; it reloads",
              op.txid());
          stale();
          updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
          return CompletableFuture.completedFuture(Message.EMPTY);
        }
        if (!mine) {
          namesystem.applyOthers(op.txid(), op.hlc(), op::op);  // refused if this NameNode took the txid since
          namesystem.retryAnswers.recordMadeElsewhere(op.clientId(), op.callId());
        }
        last = op;
      }
      // Once per entry: its ops are answered together
      journal.committed(last.txid());
      committedHlc = last.hlc().packed();  // after the ops are applied: a follower read below it finds them
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      return CompletableFuture.completedFuture(Message.EMPTY);
    } catch (IOException | RuntimeException e) {
      LOG.error("Entry {} could not be applied; this NameNode reloads", TermIndex.valueOf(entry), e);
      stale();
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public long takeSnapshot() throws IOException {
    TermIndex applied = getLastAppliedTermIndex();
    SingleFileSnapshotInfo latest = storage.getLatestSnapshot();
    if (stale) {
      return latest == null ? -1 : latest.getIndex();  // a namespace about to be reloaded is no snapshot
    }
    if (applied == null || (latest != null && latest.getIndex() >= applied.getIndex())) {
      return latest == null ? -1 : latest.getIndex();
    }
    File file = storage.getSnapshotFile(applied.getTerm(), applied.getIndex());
    long txid = namesystem.trySaveImageIfSettled(file.toPath());
    if (txid < 0) {
      // Ops not yet committed, or the namespace busy: not now (Ratis tries again after the next applied entry).
      return latest == null ? -1 : latest.getIndex();
    }
    storage.updateLatestSnapshot(new SingleFileSnapshotInfo(
        new FileInfo(file.toPath(), MD5FileUtil.computeAndSaveMd5ForFile(file)), applied));
    LOG.info("Snapshot {} written (txid {})", file.getName(), txid);
    return applied.getIndex();
  }

  @Override
  public void reinitialize() throws IOException {
    // A snapshot from the leader replaced this NameNode's storage: its namespace must be loaded again.
    LOG.info("A snapshot was installed from the leader; this NameNode reloads");
    stale();
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeader) {
    leader = newLeader;
    boolean wasLeading = leading || deposed;
    deposed = false;
    leading = member.getPeerId().equals(newLeader);
    if (!leading) {
      ready = false;
      if (wasLeading && journal != null && journal.hasUncommitted()) {
        LOG.warn("Lost the lead with ops not yet committed; this NameNode reloads");
        stale();
      }
    }
  }

  /**
   * Ratis stepped this leader down (it lost its majority, saw a higher term, or handed the lead over). Ratis names
   * no new leader then ({@code notifyLeaderChanged} comes only once one is known): without this, a leader cut off
   * from the others would go on saying it leads for as long as the partition lasts.
   */
  @Override
  public void notifyNotLeader(Collection<TransactionContext> pendingEntries) {
    readLease.end();
    if (leading) {
      deposed = true;
      LOG.info("{} no longer leads {}", getId(), nameservice);
    }
    ready = false;
    leading = false;
    leader = null;
  }

  /** The lead is being handed to another NameNode: no latest-state read is answered here meanwhile. */
  void handingOver() {
    readLease.suspend();
  }

  /** A hand-over failed; the lease counts answers again {@code quietNanos} from now ({@link ReadLease#resume}). */
  void handOverFailed(long quietNanos) {
    readLease.resume(quietNanos);
  }

  /** The lead was handed to another NameNode: no more changes here, whenever Raft tells of the new leader. */
  void handedOver() {
    ready = false;
  }

  ReadLease readLease() {
    return readLease;
  }

  @Override
  public void notifyLeaderReady() {
    try {
      namesystem.takeLeadership();
      ready = true;
      LOG.info("{} leads {}", getId(), nameservice);
      namesystem.leading();
    } catch (IOException e) {
      LOG.error("Could not take the lead", e);
    }
  }

  @Override
  public void checkLeader(String what) throws FffsException {
    if (ready && leading) {
      return;
    }
    throw new FffsException(ErrorCode.NOT_LEADER, getId() + " is not the leader of " + nameservice
        + knownLeader() + " (" + what + ")");
  }

  /**
   * The leader answers the latest state while its lease holds; when it ran out the read waits (bounded) for the
   * followers' answers to a heartbeat, and is refused with {@code NOT_LEADER} if they do not come: the client then
   * asks the others, one of which may lead by now.
   */
  @Override
  public void checkLatest(String what) throws FffsException {
    if (ready && leading && readLease.holds()) {
      return;
    }
    checkLeader(what);
    try {
      if (readLease.await(leaseWaitNanos) && ready && leading) {
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    throw new FffsException(ErrorCode.NOT_LEADER, getId() + " has not heard from a majority of " + nameservice
        + " within its read lease (" + readLease.leaseNanos() / 1_000_000 + " ms), so another may lead"
        + knownLeader() + " (" + what + ")");
  }

  private String knownLeader() {
    RaftPeerId known = leader;
    if (known == null) {
      return "; no leader is known yet";
    }
    // A leader whose lease lapsed knows of no successor yet: naming itself would send the client back here.
    return known.equals(getId()) ? "; no other leader is known yet" : "; leader=" + known;
  }

  /**
   * A follower answers a query at system time {@code t} when {@code t} is below the physical part of the last
   * committed op it applied (an op stamped later in that microsecond could still come) and it holds no op of its own
   * waiting for a commit (a deposed leader's namespace may hold changes the cluster never made). Otherwise the
   * query goes to the leader: waiting here for the log to pass {@code t} would hold an IPC handler for as long as the
   * cluster makes no change, where the leader answers in one more round trip.
   */
  @Override
  public void checkReadable(TimeSpec time, String what) throws FffsException {
    if (ready && leading) {
      if (readLease.holds() || (time.kind() == TimeSpec.Kind.SYSTEM
          && committedHlc > Namespace.limitForMicros(time.micros()))) {
        return;  // below its committed frontier every NameNode answers the same, lease or not
      }
      checkLatest(what);
      return;
    }
    if (!followerReads || time.kind() != TimeSpec.Kind.SYSTEM) {
      checkLeader(what);
      return;
    }
    long frontier = committedHlc;
    RatisJournal log = journal;
    if (frontier > Namespace.limitForMicros(time.micros()) && log != null && !log.hasUncommitted() && !stale) {
      pastReadsServed.increment();
      return;
    }
    throw new FffsException(ErrorCode.NOT_LEADER, getId() + " has applied the changes of " + nameservice
        + " up to " + HlcTimestamp.valueOf(frontier) + " only; " + what + " at " + time + " goes to the leader"
        + knownLeader());
  }

  /** Queries of past times this NameNode answered while it followed. */
  long pastReadsServed() {
    return pastReadsServed.sum();
  }

  /** The packed HLC of the last committed op applied here. */
  long committedHlc() {
    return committedHlc;
  }

  boolean isLeader() {
    return ready && leading;
  }

  RaftPeerId leaderId() {
    return leader;
  }

  private void stale() {
    ready = false;
    stale = true;
    onStale.run();
  }

  RatisJournal journal() {
    return journal;
  }

  /** Whether this NameNode's namespace is to be loaded again (it applies, snapshots and serves nothing more). */
  boolean isStale() {
    return stale;
  }
}
