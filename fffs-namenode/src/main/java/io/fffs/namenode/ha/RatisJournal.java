package io.fffs.namenode.ha;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.namenode.edits.CallerIds;
import io.fffs.namenode.edits.DurabilityWaits;
import io.fffs.namenode.edits.Journal;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namespace's {@link Journal} on a Raft log. The leader appends each stamped op here in txid order (under the
 * namespace's write lock) and {@link #flush}es once it released the lock: the ops go to the Raft server in that
 * order, one entry at a time ({@link HaEntry}), those appended while an entry was in flight together as the next; an
 * op is durable once the state machine has seen it committed by a majority ({@link #committed}), and only then is
 * its change acknowledged, on the thread that saw the commit. A failed append — this NameNode lost the lead, or its
 * server stopped — fails every change not yet committed: none of them is acknowledged here, and {@code onLost} is
 * told, since this NameNode has applied ops the cluster may never commit.
 */
final class RatisJournal implements Journal {
  private static final Logger LOG = LoggerFactory.getLogger(RatisJournal.class);
  /** Bounds of one Raft entry, so that it fits well within Ratis's appender buffer (4 MiB). */
  private static final int MAX_BATCH_OPS = 1024;
  private static final int MAX_BATCH_BYTES = 1 << 20;
  /**
   * Entries handed to Raft and not yet committed, at most: the ops stamped meanwhile wait and go together in the next
   * entry once one commits (group commit, as the local edit log's fsync), so a busy leader makes few, full entries
   * rather than many of an op or two, each costing a log write, a sync and an append RPC on every NameNode.
   */
  private static final int MAX_ENTRIES_IN_FLIGHT = 1;

  /** Hands one request to the Raft server; its reply completes once the entry is applied, or fails. */
  @FunctionalInterface
  interface RaftSubmit {
    CompletableFuture<RaftClientReply> submit(RaftClientRequest request) throws IOException;
  }

  private final RaftSubmit raft;
  private final RaftGroupId group;
  private final RaftPeerId self;
  private final Runnable onLost;
  private final ClientId clientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  private final ReentrantLock lock = new ReentrantLock();
  /** Whether a thread is handing {@link #unsent} to Raft; under the lock. */
  private boolean submitting;
  /** Encoded ops appended and not yet handed to Raft, in txid order; under the lock. */
  private final List<byte[]> unsent = new ArrayList<>();
  /** The last txid of each entry handed to Raft and not yet committed, oldest first; under the lock. */
  private final ArrayDeque<Long> inFlight = new ArrayDeque<>();
  /**
   * Answered on the state machine's thread that saw the commit: on the leader it skips its own ops, so a thread
   * switch to a notifier would only delay the answers.
   */
  private final DurabilityWaits durability;
  /** The last txid appended here or applied from the log; written under the lock. */
  private volatile long lastQueuedTxid;
  /** {txid, packed HLC} of each op appended here and not yet committed, oldest first; under the lock. */
  private final ArrayDeque<long[]> appended = new ArrayDeque<>();
  /** Why this journal takes no more ops (the lead was lost, or the NameNode stops); under the lock. */
  private IOException failure;
  /** The last txid the state machine saw committed; under the lock. */
  private long committedTxid;

  RatisJournal(RaftServer server, RaftGroupId group, RaftPeerId self, long lastTxid, Runnable onLost) {
    this(direct(server, group), group, self, lastTxid, onLost);
  }

  RatisJournal(RaftSubmit raft, RaftGroupId group, RaftPeerId self, long lastTxid, Runnable onLost) {
    this.raft = raft;
    this.group = group;
    this.self = self;
    this.onLost = onLost;
    this.lastQueuedTxid = lastTxid;
    this.durability = DurabilityWaits.inline(lastTxid);
  }

  @Override
  public void append(long txid, HlcTimestamp hlc, EditOpProto op) throws FffsException {
    // Encoded here: the IPC ids are the calling handler's.
    byte[] entry = HaEntry.of(txid, hlc, CallerIds.clientId(), CallerIds.callId(), op).encodeOne();
    lock.lock();
    try {
      if (failure != null) {
        throw new FffsException(ErrorCode.NOT_LEADER, "this NameNode lost the lead: " + failure.getMessage());
      }
      // Before the submit: the commit may reach the state machine before the submit returns.
      lastQueuedTxid = txid;
      appended.addLast(new long[] {txid, hlc.packed()});
      unsent.add(entry);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Hands the ops appended and not yet submitted to Raft as one entry, in txid order, unless an entry is in flight:
   * its commit calls this again. Called by the thread that appended, once it released the namespace's write lock:
   * only one thread submits at a time (one that finds another submitting leaves its ops to it), so the log holds the
   * ops in the order they were stamped, no thread switch comes before the Raft append, and the write lock is not
   * held during it.
   */
  @Override
  public void flush() {
    lock.lock();
    try {
      if (submitting || inFlight.size() >= MAX_ENTRIES_IN_FLIGHT) {
        return;  // the thread that submits, or the commit of an entry in flight, hands these ops on
      }
      submitting = true;
    } finally {
      lock.unlock();
    }
    List<byte[]> batch = new ArrayList<>();
    boolean done = false;
    try {
      while (true) {
        long firstTxid;
        lock.lock();
        try {
          if (failure != null) {
            unsent.clear();  // never committed; their callers were failed with the journal
          }
          if (unsent.isEmpty() || inFlight.size() >= MAX_ENTRIES_IN_FLIGHT) {
            submitting = false;
            done = true;
            return;
          }
          firstTxid = lastQueuedTxid - unsent.size() + 1;
          int bytes = 0;
          int taken = 0;
          while (taken < unsent.size() && taken < MAX_BATCH_OPS
              && (taken == 0 || bytes + unsent.get(taken).length <= MAX_BATCH_BYTES)) {
            bytes += unsent.get(taken).length;
            batch.add(unsent.get(taken++));
          }
          unsent.subList(0, taken).clear();
          inFlight.addLast(firstTxid + taken - 1);
        } finally {
          lock.unlock();
        }
        submit(firstTxid, batch);
        batch.clear();
      }
    } finally {
      if (!done) {
        lock.lock();
        try {
          submitting = false;
        } finally {
          lock.unlock();
        }
      }
    }
  }

  private void submit(long firstTxid, List<byte[]> batch) {
    RaftClientRequest request = RaftClientRequest.newBuilder().setClientId(clientId).setServerId(self)
        .setGroupId(group).setCallId(callIds.incrementAndGet())
        .setMessage(Message.valueOf(HaEntry.encodeBatch(batch)))
        .setType(RaftClientRequest.writeRequestType()).build();
    CompletableFuture<RaftClientReply> reply;
    try {
      reply = raft.submit(request);
    } catch (IOException | RuntimeException e) {
      fail(new FffsException(ErrorCode.NOT_LEADER, "the Raft log refused txids " + firstTxid + ".."
          + (firstTxid + batch.size() - 1) + ": " + e.getMessage(), e));
      return;
    }
    reply.whenComplete((answer, error) -> {
      Throwable cause = error != null ? error : answer.isSuccess() ? null : answer.getException();
      if (cause != null) {
        fail(cause);
      }
    });
  }

  /**
   * The Raft server's division of this group, called directly (the server itself would hand each request to a pool
   * thread and wait for it); the server where the division does not take client requests.
   */
  private static RaftSubmit direct(RaftServer server, RaftGroupId group) {
    return new RaftSubmit() {
      private volatile RaftClientAsynchronousProtocol direct;

      @Override
      public CompletableFuture<RaftClientReply> submit(RaftClientRequest request) throws IOException {
        if (direct == null) {
          RaftServer.Division division = server.getDivision(group);
          direct = division instanceof RaftClientAsynchronousProtocol p ? p : server;
        }
        return direct.submitClientRequestAsync(request);
      }
    };
  }

  /**
   * Whether the committed entry {@code txid} stamped {@code hlc} is the op this NameNode appended as {@code txid}
   * (its own, which it applied when it stamped it), rather than another leader's op of the same txid, which a
   * NameNode that lost the lead with uncommitted ops meets in the log. Asked in txid order (an entry's ops, entries in
   * log order), so the ops before {@code txid} are behind for good and leave the front: one look per op, not a scan.
   */
  boolean appendedHere(long txid, HlcTimestamp hlc) {
    lock.lock();
    try {
      while (!appended.isEmpty() && appended.peekFirst()[0] < txid) {
        appended.removeFirst();
      }
      long[] op = appended.peekFirst();
      return op != null && op[0] == txid && op[1] == hlc.packed();
    } finally {
      lock.unlock();
    }
  }

  /** The state machine applied (or skipped, as this NameNode's own) the committed op {@code txid}. */
  void committed(long txid) {
    lock.lock();
    try {
      committedTxid = Math.max(committedTxid, txid);
      while (!appended.isEmpty() && appended.peekFirst()[0] <= txid) {
        appended.removeFirst();
      }
      while (!inFlight.isEmpty() && inFlight.peekFirst() <= txid) {
        inFlight.removeFirst();
      }
    } finally {
      lock.unlock();
    }
    // The ops that waited for this commit go to Raft before the answers are sent: the next entry's round trip
    // overlaps the answering rather than following it.
    flush();
    durability.advance(txid);  // answers the changes up to txid on this thread
    lock.lock();
    try {
      // After the advance: hasUncommitted never sees another leader's committed op as uncommitted
      if (txid > lastQueuedTxid) {
        lastQueuedTxid = txid;
      }
    } finally {
      lock.unlock();
    }
  }

  /** Whether ops appended here wait for a commit (a leader that loses the lead with them must reload). */
  boolean hasUncommitted() {
    return lastQueuedTxid > durability.durable();
  }

  private void fail(Throwable cause) {
    FffsException refusal;
    long committed;
    lock.lock();
    try {
      if (failure != null) {
        return;
      }
      refusal = new FffsException(ErrorCode.NOT_LEADER, "a change was not committed by the NameNodes ("
          + cause.getMessage() + "); retry it on the leader", cause);
      failure = refusal;
      committed = committedTxid;
    } finally {
      lock.unlock();
    }
    LOG.warn("Raft log append failed; changes not committed fail: {}", cause.toString());
    // The next entry is submitted before a commit's answers: an entry refused then must not fail the committed one's.
    durability.advance(committed);
    durability.refuse(refusal);
    onLost.run();
  }

  @Override
  public void awaitSynced(long txid) throws IOException {
    durability.await(txid);
  }

  @Override
  public boolean isSynced(long txid) {
    return durability.isSynced(txid);
  }

  @Override
  public void whenSynced(long txid, Runnable synced, Consumer<IOException> failed) {
    durability.whenSynced(txid, synced, failed);
  }

  @Override
  public long lastQueuedTxid() {
    return lastQueuedTxid;
  }

  @Override
  public long batchesSynced() {
    return durability.rounds();
  }

  /** Fails what still waits: the NameNode is stopping. */
  @Override
  public void close() {
    FffsException stopping = new FffsException(ErrorCode.IO_ERROR, "the NameNode is shutting down");
    lock.lock();
    try {
      if (failure == null) {
        failure = stopping;
      }
    } finally {
      lock.unlock();
    }
    durability.refuse(stopping);
    durability.shutdown();
  }
}
