package io.fffs.client.data;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Writes to one block with a window of un-acknowledged packets in flight (pipelining). A failed write surfaces on
 * a later call; nothing after a failure is sent.
 */
public interface BlockWriter extends Closeable {
  /**
   * Sends {@code data} to be written at {@code offset} of the block (which must not be beyond the block's length
   * once every earlier write is applied). Returns as soon as the packet is sent, or blocks while the window is
   * full. The buffer is not used after return.
   */
  void write(long offset, ByteBuffer data) throws IOException;

  /**
   * {@link #write}, the caller keeping {@code data}'s bytes unchanged until {@link #acknowledgedBytes} counts them
   * (as the stream's copies of unacknowledged writes are kept): a writer that keeps what it may send again keeps
   * {@code data} itself then instead of a copy.
   */
  default void writeRetained(long offset, ByteBuffer data) throws IOException {
    write(offset, data);
  }

  /** Waits until every write sent so far is acknowledged; returns the block length after the last one. */
  long flush() throws IOException;

  /**
   * How many bytes of this writer's writes, counted in the order they were sent, the DataNode applied; -1 when the
   * writer does not count them. A DataNode applies nothing of a stream after a refused packet, so after a failure
   * the writes past this count are exactly the ones to send again through a new writer.
   */
  default long acknowledgedBytes() {
    return -1;
  }

  /**
   * Whether this writer keeps every write its DataNodes have not applied yet (by reference: the copies it sends from)
   * and, after one of them refused its token, sends those again itself once given a fresh one ({@link #renewToken});
   * when not, the caller keeps what it may have to send again.
   */
  default boolean renewsInPlace() {
    return false;
  }

  /**
   * After this writer threw a refusal of its token ({@code ACCESS_DENIED}, by any of its DataNodes): carries on with
   * {@code fresh}, sending again every write a DataNode that refused did not apply, in order, through a new stream to
   * it. Writes still go on to the DataNodes that did not refuse. Only when {@link #renewsInPlace()}.
   */
  default void renewToken(BlockToken fresh) throws IOException {
    throw new UnsupportedOperationException("this block writer cannot renew its token in place");
  }

  /** The HLC the last acknowledged write was stamped with in the block log ({@code ZERO} before any). */
  HlcTimestamp lastEntryHlc();

  /**
   * The DataNodes this writer still writes to, the primary first (a follower that failed is no longer one); empty
   * when the writer does not know them.
   */
  default List<DatanodeIdProto> replicas() {
    return List.of();
  }

  /**
   * Drops {@code datanode}, a follower, from the pipeline (something outside the writer found it failed, as a SYNC
   * did); a primary is not dropped, and its failure surfaces on the writer's next call instead.
   */
  default void drop(DatanodeIdProto datanode, IOException cause) {
  }

  /** The DataNodes that left this writer's pipeline (failed followers), oldest first. */
  default List<DatanodeIdProto> dropped() {
    return List.of();
  }

  /**
   * Adds {@code datanode}, which holds no replica of the block, to the pipeline as a follower, after having the
   * primary copy the block's history so far to it ({@code TRANSFER_BLOCK}); every write sent so far must be
   * acknowledged ({@link #flush}). Throws if the copy or the open fails, the pipeline unchanged.
   */
  default void addFollower(DatanodeIdProto datanode) throws IOException {
    throw new java.io.IOException("this block writer has no pipeline to add a DataNode to");
  }

  /**
   * After this writer's primary failed: lets each follower apply what it was sent (one that cannot is left out),
   * releases every connection without ending the pipeline, and returns the followers left, over which
   * {@link DataTransferClient#promoteWriter} opens a new pipeline. None for a single-DataNode writer.
   */
  default List<DatanodeIdProto> abandon() {
    return List.of();
  }

  /** Flushes and releases the writer (the connection stays pooled). */
  @Override
  void close() throws IOException;
}
