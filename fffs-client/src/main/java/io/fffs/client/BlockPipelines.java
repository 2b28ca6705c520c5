package io.fffs.client;

import io.fffs.client.data.BlockWriter;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.PhysicalClock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The blocks one output stream writes, in file order: each one's id, its DataNodes (the primary first; a member
 * that left its pipeline is removed), its WRITE token ({@link WriteTokens}), how many DataNodes its pipeline started
 * with, and while one is open its writer, with copies of that writer's unacknowledged writes when they may have to
 * be sent again ({@link UnackedWrites}). Not thread-safe (the stream's lock).
 */
final class BlockPipelines implements PrimaryFailover.Writers {
  private final List<Long> blockIds = new ArrayList<>();
  private final List<List<DatanodeIdProto>> locations = new ArrayList<>();
  private final WriteTokens tokens;
  private final Map<Long, BlockWriter> writers = new HashMap<>();
  private final Map<Long, UnackedWrites> unacked = new HashMap<>();
  /**
   * Acknowledged packet arrays, shared by every block's copies: a block's copies would otherwise keep theirs until
   * the stream closes, about a window of packets per block written (with 64 MiB blocks and 1 MiB packets, half of a
   * 1 GiB file held in the heap by the end of its write).
   */
  private final ArrayDeque<byte[]> spareArrays = new ArrayDeque<>();
  /** Per block: how many DataNodes its pipeline started with (a repair adds DataNodes up to it). */
  private final Map<Long, Integer> wanted = new HashMap<>();
  /**
   * Per block: the newest last entry (packed HLC) of its writers that were replaced or closed. A writer promoted
   * after its primary was lost, or opened after a token renewal, knows no entry of its own until it is sent one,
   * though its DataNodes hold this one.
   */
  private final Map<Long, Long> lastEntries = new HashMap<>();

  BlockPipelines(PhysicalClock clock) {
    this.tokens = new WriteTokens(clock);
  }

  /** Appends {@code block}, as the NameNode located it. */
  void add(LocatedBlockProto block) {
    blockIds.add(block.getBlock().getBlockId());
    locations.add(List.copyOf(block.getLocationsList()));
    tokens.add(block);
  }

  int count() {
    return blockIds.size();
  }

  long id(int index) {
    return blockIds.get(index);
  }

  /** The index of {@code blockId} in the file, or -1 when the stream does not write it. */
  int index(long blockId) {
    return blockIds.indexOf(blockId);
  }

  List<DatanodeIdProto> locations(int index) {
    return locations.get(index);
  }

  BlockToken token(int index) {
    return tokens.get(index);
  }

  @Override
  public BlockToken token(long blockId) {
    return tokens.get(index(blockId));
  }

  /** Whether the token of block {@code index} is halfway through its life (a fresh one is to be asked for). */
  boolean tokenDue(int index) {
    return tokens.due(index);
  }

  /** Takes the fresh token of {@code block}, if the stream writes it. */
  void renewToken(LocatedBlockProto block) {
    int index = index(block.getBlock().getBlockId());
    if (index >= 0) {
      tokens.set(index, block);
    }
  }

  BlockWriter writer(long blockId) {
    return writers.get(blockId);
  }

  /** The open writers by block id (a view). */
  Map<Long, BlockWriter> writers() {
    return Collections.unmodifiableMap(writers);
  }

  /** The copies of {@code blockId}'s writer's unacknowledged writes, or null when they are not kept. */
  UnackedWrites copies(long blockId) {
    return unacked.get(blockId);
  }

  /** {@code writer}, just opened over block {@code index}'s DataNodes, writes it; {@code keepCopies}: see class. */
  void opened(int index, BlockWriter writer, boolean keepCopies) {
    long blockId = id(index);
    // The other blocks' acknowledged copies are done with: their memory takes this block's copies.
    unacked.forEach((other, copies) -> {
      BlockWriter otherWriter = writers.get(other);
      if (otherWriter != null) {
        copies.release(otherWriter.acknowledgedBytes());
      }
    });
    writers.put(blockId, writer);
    if (keepCopies) {
      unacked.put(blockId, newCopies());
    } else {
      unacked.remove(blockId);
    }
    wanted.putIfAbsent(blockId, locations(index).size());
    keepMembers(blockId, writer);
  }

  @Override
  public UnackedWrites newCopies() {
    return new UnackedWrites(spareArrays);
  }

  @Override
  public void install(long blockId, BlockWriter writer, UnackedWrites copies) {
    writers.put(blockId, writer);
    unacked.put(blockId, copies);
    keepMembers(blockId, writer);
  }

  /**
   * {@inheritDoc} Its copies go: what the caller's last {@link UnackedWrites#after} found acknowledged is pooled, not
   * what was acknowledged since, as the writes that call returned (to send again) may still be read from them.
   */
  @Override
  public void remove(long blockId) {
    forget(blockId, writers.remove(blockId));
    UnackedWrites copies = unacked.remove(blockId);
    if (copies != null) {
      copies.release(0);
    }
  }

  /**
   * Forgets every writer (closed or released by the caller, nothing being sent again from its copies): the direct
   * buffers of what each acknowledged go to the pool.
   */
  void clearWriters() {
    writers.forEach(this::forget);
    unacked.forEach((blockId, copies) -> {
      BlockWriter writer = writers.get(blockId);
      copies.release(writer == null ? 0 : writer.acknowledgedBytes());
    });
    writers.clear();
    unacked.clear();
  }

  private void forget(long blockId, BlockWriter writer) {
    if (writer != null) {
      lastEntries.merge(blockId, writer.lastEntryHlc().packed(), Math::max);
    }
  }

  /**
   * The newest entry of {@code blockId} (packed HLC, 0: none) its writers acknowledged: its open writer's, or one
   * that writer's DataNodes took over from a writer before it.
   */
  long lastEntry(long blockId) {
    BlockWriter writer = writers.get(blockId);
    long open = writer == null ? 0 : writer.lastEntryHlc().packed();
    return Math.max(open, lastEntries.getOrDefault(blockId, 0L));
  }

  /** The blocks some writer wrote, in file order. */
  List<Long> written() {
    List<Long> written = new ArrayList<>();
    for (long blockId : blockIds) {
      if (writers.containsKey(blockId) || lastEntries.containsKey(blockId)) {
        written.add(blockId);
      }
    }
    return written;
  }

  /** Takes the writer's pipeline members as the block's DataNodes: a dropped follower gets no more requests. */
  void keepMembers(long blockId, BlockWriter writer) {
    List<DatanodeIdProto> members = writer.replicas();
    if (!members.isEmpty()) {
      locations.set(index(blockId), members);
    }
  }

  /** {@code datanode} left block {@code blockId}'s pipeline. */
  void removeLocation(long blockId, DatanodeIdProto datanode) {
    int index = index(blockId);
    List<DatanodeIdProto> left = new ArrayList<>(locations.get(index));
    left.remove(datanode);
    locations.set(index, List.copyOf(left));
  }

  /** How many DataNodes the pipeline of {@code blockId} started with (0 before it had a writer). */
  int wanted(long blockId) {
    return wanted.getOrDefault(blockId, 0);
  }
}
