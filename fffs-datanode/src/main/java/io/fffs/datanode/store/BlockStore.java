package io.fffs.datanode.store;

import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;

/**
 * A DataNode's block store: every block keeps its whole history, and any state of it can be read — the latest, as
 * of a system time (HLC), as of a user time, or as of a log index.
 *
 * <p>Thread-safety: all methods may be called from many threads. Mutations of one block are serialised (a second
 * writer of the same block waits); mutations of different blocks run in parallel; reads never wait for writers
 * longer than it takes to publish one entry.
 *
 * <p>Errors are {@link FffsException}s with a code and a sentence naming the block, offset and times involved.
 */
public interface BlockStore extends AutoCloseable {
  /**
   * Writes {@code data} (position to limit; not moved) at {@code offset} of the block, overwriting and extending.
   * The first write of a block (or of a deleted one) must be at offset 0 and creates it with a create entry.
   * A write of nothing to an existing block changes nothing and returns its last entry.
   *
   * @return the write's entry: its HLC, the block length after it and its log index
   * @throws FffsException {@code WRITE_BEYOND_EOF} if {@code offset} is past the block's length;
   *     {@code BLOCK_SIZE_EXCEEDED} if the write would grow the block past its block size;
   *     {@code USER_TIME_REGRESSION} if a record's user time is below an earlier one (nothing is changed);
   *     {@code INVALID_ARGUMENT} for an unknown extractor or a bad argument; {@code IO_ERROR} if the arena stays
   *     full or persistence failed
   */
  WriteResult write(long blockId, long offset, ByteBuffer data, WriteOptions options) throws FffsException;

  /**
   * Reserves the arena pages of a write of {@code length} bytes at {@code offset} for the caller to fill
   * ({@link PageReservation}); the same checks as {@link #write} run now (nothing is reserved if one fails) except
   * the user-time check, which needs the bytes and runs at commit. Holds the block's writer lock until the
   * reservation is committed or closed, on this thread.
   *
   * @throws FffsException as {@link #write}; {@code INVALID_ARGUMENT} for {@code length < 1};
   *     {@code UNSUPPORTED} if this store cannot reserve pages (then use {@link #write})
   */
  default PageReservation reserve(long blockId, long offset, int length, WriteOptions options)
      throws FffsException {
    throw new FffsException(io.fffs.common.error.ErrorCode.UNSUPPORTED, "this block store cannot reserve pages for"
        + " a write; write the bytes with write()");
  }

  /**
   * Cuts the block to {@code newLength} (at most its length).
   *
   * @throws FffsException {@code NOT_FOUND} if the block does not exist; {@code INVALID_ARGUMENT} for a length
   *     outside {@code [0, length]}
   */
  WriteResult truncate(long blockId, long newLength) throws FffsException;

  /**
   * Cuts the block to {@code newLength} as a follower: at the primary's {@code stamp} ({@link ReplicaStamp}).
   *
   * @throws FffsException as {@link #truncate(long, long)}; {@code REPLICA_STALE} if the entry does not continue
   *     this replica's log as it continued the primary's, or the block is not following here
   */
  default WriteResult truncate(long blockId, long newLength, ReplicaStamp stamp) throws FffsException {
    throw new FffsException(io.fffs.common.error.ErrorCode.UNSUPPORTED, "this block store keeps no replicas");
  }

  /**
   * Starts a write pipeline of the block with this node as {@code role} ({@link ReplicaRole}); creates nothing
   * in the log. A FOLLOWER's frontier starts at this node's clock now, which the client passes on to the primary,
   * so every entry the primary stamps later is above it. Returns this node's clock after the change.
   */
  default HlcTimestamp openReplica(long blockId, ReplicaRole role) throws FffsException {
    throw new FffsException(io.fffs.common.error.ErrorCode.UNSUPPORTED, "this block store keeps no replicas");
  }

  /**
   * {@link #openReplica(long, ReplicaRole)} for the pipeline of {@code epoch} (0: unchecked), which becomes the
   * block's here.
   *
   * @throws FffsException {@code REPLICA_STALE} if the block was opened here for a pipeline of a higher epoch
   */
  default HlcTimestamp openReplica(long blockId, ReplicaRole role, long epoch) throws FffsException {
    checkPipelineEpoch(blockId, epoch);
    return openReplica(blockId, role);
  }

  /**
   * {@link #openReplica(long, ReplicaRole, long)} for a copy of a block whose history garbage collection trimmed on
   * its source: a FOLLOWER that holds nothing of the block yet answers for exactly the moments {@code kept} (null:
   * every moment), as the source does.
   */
  default HlcTimestamp openReplica(long blockId, ReplicaRole role, long epoch, MomentSet kept)
      throws FffsException {
    if (kept != null) {
      throw new FffsException(io.fffs.common.error.ErrorCode.UNSUPPORTED, "this block store keeps no history"
          + " bounds, so it cannot take a copy of block " + blockId + " whose history was collected");
    }
    return openReplica(blockId, role, epoch);
  }

  /**
   * Refuses ({@code REPLICA_STALE}) a change sent by the pipeline of {@code epoch} when the block was opened here
   * for a later pipeline: its writer was replaced. 0 is not checked.
   */
  default void checkPipelineEpoch(long blockId, long epoch) throws FffsException {}

  /**
   * Ends a pipeline on a follower: the clock takes in {@code frontier} (the primary's clock at the last entry), then
   * the block answers by this node's clock again.
   */
  default void endReplica(long blockId, HlcTimestamp frontier) throws FffsException {
    throw new FffsException(io.fffs.common.error.ErrorCode.UNSUPPORTED, "this block store keeps no replicas");
  }

  /**
   * Ends the pipeline of a closed file's block whose end never reached this replica: when the block here follows a
   * primary (or was left out) at {@code pipelineEpoch} and its last entry is {@code lastEntryHlc}, the block's last
   * as its writer recorded it, it misses nothing and answers by this node's clock again. Returns whether it did;
   * false (nothing changed) when the block is not here, not following, at another epoch or last entry (a newer
   * writer's), or being written.
   */
  default boolean endClosedReplica(long blockId, long lastEntryHlc, long pipelineEpoch) throws FffsException {
    return false;
  }

  /**
   * Deletes the block now; its past states stay readable.
   *
   * @throws FffsException {@code NOT_FOUND} if the block does not exist
   */
  WriteResult delete(long blockId) throws FffsException;

  /**
   * A view of {@code [offset, offset + length)} of the block as of {@code time} (short at the block's end). A system
   * time the DataNode's clock has not passed is waited for (at most the max offset), else refused.
   *
   * @throws FffsException {@code NOT_FOUND} if the block did not exist then (never created, or deleted);
   *     {@code INVALID_ARGUMENT} if {@code offset} is past the block's length then; {@code TIME_IN_FUTURE};
   *     {@code CORRUPT} if an evicted page fails its checksum
   */
  ReadView read(long blockId, long offset, int length, TimeSpec time) throws FffsException;

  /**
   * {@link #read} for a caller that sends the view with plain socket writes (those runs from a mapping of their
   * file): evicted pages whose chunk CRCs an earlier read checked may be runs of their segment file
   * ({@link ReadView.Run#inFile()}) carrying those CRCs, not loaded and checked again; the reader's check of the CRCs
   * covers them. Any other store: {@link #read}.
   */
  default ReadView readForSending(long blockId, long offset, int length, TimeSpec time) throws FffsException {
    return read(blockId, offset, length, time);
  }

  /**
   * Where the bytes {@link #read} would return are in this DataNode's files, for a short-circuit reader on this host
   * ({@link LocalView}); the same waits and refusals as {@link #read}. {@code UNSUPPORTED} for a store without files.
   */
  /**
   * Unmaps the segment-file mappings kept for data-port answers ({@code persist.SegmentWindows}) of files no reader
   * holds now: their pages stay in the page cache but no longer mapped, so the kernel may drop them at once (a
   * benchmark that evicts them, say); later answers map them again.
   */
  default void releaseReadMappings() {}

  default LocalView locate(long blockId, long offset, int length, TimeSpec time) throws FffsException {
    throw new FffsException(io.fffs.common.error.ErrorCode.UNSUPPORTED, "this store serves no short-circuit reads");
  }

  /** {@link #read} as of log index {@code logIndex} of the block ({@code NOT_FOUND} past the last entry). */
  ReadView readAtLogIndex(long blockId, int logIndex, long offset, int length) throws FffsException;

  /** The block as of {@code time}; never throws for a block that does not exist (then {@code exists} is false). */
  BlockInfo info(long blockId, TimeSpec time) throws FffsException;

  /** The block as of log index {@code logIndex} ({@code NOT_FOUND} past the last entry). */
  BlockInfo infoAtLogIndex(long blockId, int logIndex) throws FffsException;

  /**
   * The block's log entries now, oldest first (empty when this store does not have the block): what a copy of the
   * block on another DataNode applies, each entry's bytes read with {@link #readAtLogIndex}.
   */
  default java.util.List<LogEntry> logEntries(long blockId) throws FffsException {
    throw new FffsException(io.fffs.common.error.ErrorCode.UNSUPPORTED, "this block store cannot list a log");
  }

  /**
   * The block's log with the moments garbage collection keeps of it (null: all), read together, for a copy of the
   * block to another DataNode; garbage collection leaves the log as it is until the snapshot is closed.
   */
  default LogSnapshot logSnapshot(long blockId) throws FffsException {
    return new LogSnapshot(logEntries(blockId), null, (from, to) -> {
      throw new FffsException(io.fffs.common.error.ErrorCode.UNSUPPORTED, "this block store keeps no page versions");
    }, () -> { });
  }

  /**
   * The moment (µs) from which {@link #logEntries} lists every entry of the block: garbage collection may have
   * dropped entries before it (the states kept there still read right, page version by page version); 0 while
   * nothing of the block was collected.
   */
  default long logCompleteFromMicros(long blockId) {
    return 0;
  }

  /** What the segment files hold: their size, the records entries still point to, the latest states' bytes. */
  default DiskUsage diskUsage() {
    return DiskUsage.NONE;
  }

  /** The bytes of a page version: what a kept state before {@link #logCompleteFromMicros} is known to. */
  default int pageSize() {
    return 4096;
  }

  /**
   * Drops this replica of the block with its whole history (the other replicas keep it). Returns false, dropping
   * nothing, while the block is in a write pipeline here or has entries not yet durable.
   */
  default boolean dropReplica(long blockId) throws FffsException {
    throw new FffsException(io.fffs.common.error.ErrorCode.UNSUPPORTED, "this block store keeps no replicas");
  }

  /** Blocks set aside because damage in the segment files touched them: not served, reported corrupt. */
  default java.util.Set<Long> quarantined() {
    return java.util.Set.of();
  }

  /**
   * Returns once each named block is durable up to the entry that was its last when this was called. Blocks this
   * store never had are skipped.
   *
   * @throws FffsException {@code IO_ERROR} if persistence failed or is switched off
   */
  void sync(Collection<Long> blockIds) throws FffsException;

  /** The highest HLC such that every entry stamped at or below it is on disk. */
  HlcTimestamp durableFrontier();

  /** Every live (created, not deleted) block with its current length. */
  List<BlockSummary> blockReport();

  /** The {@link #blockReport} line of {@code blockId}, or null when it is not a live block here. */
  default BlockSummary summary(long blockId) {
    return blockReport().stream().filter(block -> block.blockId() == blockId).findFirst().orElse(null);
  }

  MemoryUsage memoryUsage();

  StoreStats stats();

  /**
   * Applies the NameNode's retention table (docs/history.md) if it is newer than the last one applied: blocks no kept
   * version lists are dropped, the others keep only the states their kept moments read; reads of other moments are
   * refused with {@code HISTORY_EXPIRED} from then on.
   *
   * @throws FffsException {@code UNSUPPORTED} if this store keeps every state; {@code IO_ERROR} if the retention
   *     state cannot be written (nothing is dropped then)
   */
  default void applyRetention(io.fffs.datanode.store.history.RetentionTable table) throws FffsException {
    throw new FffsException(io.fffs.common.error.ErrorCode.UNSUPPORTED, "this block store keeps every state");
  }

  /** The generation of the last retention table applied; 0 if none. */
  default long retentionGeneration() {
    return 0;
  }

  /** Drops now what an applied table let go of and a writer or persistence held back before. */
  default void collectHistory() {}

  /** What the background scrubber of the persisted segments has found ({@link ScrubberStatus#DISABLED} if off). */
  default ScrubberStatus scrubberStatus() {
    return ScrubberStatus.DISABLED;
  }

  /** Persists what is queued, closes the segment files cleanly and releases the arena. */
  @Override
  void close() throws FffsException;
}
