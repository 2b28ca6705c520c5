package io.fffs.client;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.WriteOptions;
import io.fffs.client.errors.ClientErrors;
import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.CommonProtos.BlockLastEntryProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a file at any position up to its length: bytes gather into a packet, and a full packet (or a
 * {@link #seek}, {@link #hflush}, {@link #close}) sends it to the DataNodes of the blocks it covers. Block i holds
 * bytes [i·blockSize, (i+1)·blockSize); before asking the NameNode for block i+1 the writer drains block i, so the
 * NameNode's event follows every write of the block it closes (causally consistent snapshots).
 * {@link #hflush} makes the written length visible to new readers; {@link #hsync} also makes it durable. In
 * latency mode ({@code fffs.client.latency-mode}) each write call is sent at once as its own packet, so each
 * becomes one block-log entry: reads by user time then resolve to exactly the writes stamped up to the time.
 * Every packet carries the block's WRITE token; halfway through a token's life the writer drains the block and
 * asks the NameNode for fresh ones (as the lease holder), so a long write never sends a packet with a token that
 * expires on the way. A DataNode that refuses a token anyway (its key unknown after a NameNode upgrade or failover,
 * or expired) makes the writer ask for fresh tokens once and send again what was not applied: a replicated pipeline
 * keeps its unapplied packets itself ({@link BlockWriter#renewToken}), a single-DataNode writer's are copies kept
 * here ({@link UnackedWrites}).
 */
final class FffsOutputStream extends OutputStream implements Syncable, StreamCapabilities {
  private static final Logger LOG = LoggerFactory.getLogger(FffsOutputStream.class);
  private final FffsClient client;
  private final NamenodeClient nn;
  private final String path;
  private final long fileId;
  private final long blockSize;
  private final WriteOptions options;
  private final List<Long> blockIds = new ArrayList<>();
  /** Per block: the DataNodes to write it to, the primary first (a follower dropped by a writer is removed). */
  private final List<List<DatanodeIdProto>> blockLocations = new ArrayList<>();
  private final WriteTokens blockTokens;
  private final Map<Long, BlockWriter> writers = new HashMap<>();
  /** Per open writer that carries a token: its writes not acknowledged yet. */
  private final Map<Long, UnackedWrites> unacked = new HashMap<>();
  /** True while sending again after a refused token: a second refusal fails the write. */
  private boolean resending;
  private final Set<Long> unsynced = new LinkedHashSet<>();
  /** Per block: how many DataNodes its pipeline started with (a repair adds DataNodes up to it). */
  private final Map<Long, Integer> wanted = new HashMap<>();
  private final PipelineRepair repair;
  private final PrimaryFailover failover;
  /** Where write calls gather a packet; handed to {@link UnackedWrites} when full, and replaced by a spare. */
  private byte[] packet;
  /** Latency mode: every write call goes out as its own packet (one block-log entry, one user-time stamp). */
  private final boolean sendEachWrite;
  private int packetLength;
  private long packetStart;
  private long length;
  private long reportedLength = -1;
  /** Per block, the last entry the NameNode was told of (fsync). */
  private final Map<Long, Long> reportedEntries = new HashMap<>();
  private boolean closed;

  FffsOutputStream(FffsClient client, String path, long fileId, long blockSize, String userTimePlugin,
      List<LocatedBlockProto> existing, long length, long position, int packetSize, boolean sendEachWrite) {
    this.client = client;
    this.nn = client.namenode();
    this.path = path;
    this.fileId = fileId;
    this.blockSize = blockSize;
    this.options = new WriteOptions(blockSize, userTimePlugin);
    this.blockTokens = new WriteTokens(client.clock().physicalClock());
    this.repair = new PipelineRepair(client.conf(), nn, path, fileId, client.clientName());
    this.failover = new PrimaryFailover(client, options, path, new PrimaryFailover.Writers() {
      @Override
      public BlockToken token(long blockId) {
        return blockTokens.get(blockIds.indexOf(blockId));
      }

      @Override
      public void install(long blockId, BlockWriter writer, UnackedWrites copies) {
        writers.put(blockId, writer);
        unacked.put(blockId, copies);
        keepMembers(blockId, writer);
      }

      @Override
      public void remove(long blockId) {
        writers.remove(blockId);
        unacked.remove(blockId);
      }
    });
    for (LocatedBlockProto block : existing) {
      blockIds.add(block.getBlock().getBlockId());
      blockLocations.add(List.copyOf(block.getLocationsList()));
      blockTokens.add(block);
    }
    this.length = length;
    this.reportedLength = length;
    this.packetStart = position;
    this.packet = new byte[packetSize];
    this.sendEachWrite = sendEachWrite;
  }

  @Override
  public synchronized void write(int b) throws IOException {
    checkOpen();
    if (packetLength == packet.length) {
      sendPacket();
    }
    packet[packetLength++] = (byte) b;
    if (sendEachWrite) {
      sendPacket();
    }
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) throws IOException {
    checkOpen();
    while (len > 0) {
      if (packetLength == packet.length) {
        sendPacket();
      }
      if (packetLength == 0 && len >= packet.length) {
        // A whole packet lies in the caller's array: it goes out from there (a block writer copies what it sends
        // before it returns) instead of through the packet buffer, one pass over the bytes fewer.
        send(b, off, packet.length);
        off += packet.length;
        len -= packet.length;
        continue;
      }
      int n = Math.min(len, packet.length - packetLength);
      System.arraycopy(b, off, packet, packetLength, n);
      packetLength += n;
      off += n;
      len -= n;
    }
    if (sendEachWrite) {
      sendPacket();
    }
  }

  /** Moves the write position; it may be anywhere up to the file's length ({@code WRITE_BEYOND_EOF} beyond). */
  synchronized void seek(long position) throws IOException {
    checkOpen();
    sendPacket();
    if (position < 0 || position > length) {
      throw new FffsException(ErrorCode.WRITE_BEYOND_EOF, "cannot seek " + path + " to " + position
          + ": writes may land anywhere up to the current length " + length + ", not beyond it");
    }
    packetStart = position;
  }

  synchronized long getPos() {
    return packetStart + packetLength;
  }

  /** The file length as this writer knows it (everything written so far). */
  synchronized long length() {
    return Math.max(length, packetStart + packetLength);
  }

  private void sendPacket() throws IOException {
    send(packet, 0, packetLength);
    packetLength = 0;
  }

  /** Sends {@code count} bytes of {@code bytes} from {@code from} at the write position, split at block ends. */
  private void send(byte[] bytes, int from, int count) throws IOException {
    int sent = 0;
    while (sent < count) {
      long at = packetStart + sent;
      int index = (int) (at / blockSize);
      long inBlock = at - index * blockSize;
      int n = (int) Math.min(count - sent, blockSize - inBlock);
      BlockWriter writer = writerFor(index);
      UnackedWrites copies = unacked.get(blockIds.get(index));
      if (copies != null && bytes == packet && from == 0 && n == packet.length) {
        // The stream's own full packet, all in one block: kept as it is, one pass over the bytes fewer.
        copies.handOver(inBlock, bytes, writer.acknowledgedBytes());
        packet = copies.spare(packet.length);
      } else if (copies != null) {
        copies.add(inBlock, bytes, from + sent, n, writer.acknowledgedBytes());
      }
      try {
        writer.write(inBlock, ByteBuffer.wrap(bytes, from + sent, n));
      } catch (FffsException e) {
        if (e.code() != ErrorCode.ACCESS_DENIED) {
          failOver(blockIds.get(index), writer, e);
        } else {
          resendRefused(e);  // this write is among the copies: sent again
        }
      } catch (IOException e) {
        failOver(blockIds.get(index), writer, e);  // this write is among the copies: sent again
      }
      unsynced.add(blockIds.get(index));
      sent += n;
    }
    packetStart += count;
    length = Math.max(length, packetStart);
  }

  private BlockWriter writerFor(int index) throws IOException {
    while (blockIds.size() <= index) {
      addBlock();
    }
    long blockId = blockIds.get(index);
    BlockWriter writer = writers.get(blockId);
    if (blockTokens.due(index)) {
      // Its packets would outlive the token: go on with a fresh token (renewing drains and closes the writers).
      renewTokens();
      writer = writers.get(blockId);
    }
    if (writer == null) {
      List<DatanodeIdProto> locations = blockLocations.get(index);
      if (locations.isEmpty()) {
        throw new FffsException(ErrorCode.NOT_FOUND, "block " + blockId + " of " + path
            + " has no live DataNode to write to");
      }
      writer = client.data().openWriter(locations, blockId, blockTokens.get(index), options);
      writers.put(blockId, writer);
      // A pipeline's copies are what a promoted follower is sent again should its primary fail.
      if ((blockTokens.get(index) != null && !writer.renewsInPlace() && writer.acknowledgedBytes() >= 0)
          || writer.replicas().size() > 1) {
        unacked.put(blockId, new UnackedWrites());
      } else {
        unacked.remove(blockId);
      }
      wanted.putIfAbsent(blockId, locations.size());
      keepMembers(blockId, writer);
    }
    return writer;
  }

  /** Takes the writer's pipeline members as the block's DataNodes: a dropped follower gets no more requests. */
  private void keepMembers(long blockId, BlockWriter writer) {
    List<DatanodeIdProto> members = writer.replicas();
    if (!members.isEmpty()) {
      blockLocations.set(blockIds.indexOf(blockId), members);
    }
  }

  /** Drains the current last block, then asks the NameNode for the next one. */
  private void addBlock() throws IOException {
    BlockProto previous = null;
    if (!blockIds.isEmpty()) {
      long last = blockIds.get(blockIds.size() - 1);
      BlockWriter writer = writers.get(last);
      if (writer != null) {
        try {
          flushOrFailOver(last, writer);
        } catch (FffsException e) {
          resendRefused(e);
        }
      }
      previous = BlockProto.newBuilder().setBlockId(last).setNumBytes(blockSize).build();
    }
    BlockProto full = previous;
    LocatedBlockProto block = call(() -> nn.addBlock(path, fileId, client.clientName(), full));
    blockIds.add(block.getBlock().getBlockId());
    blockLocations.add(List.copyOf(block.getLocationsList()));
    blockTokens.add(block);
  }

  /**
   * Fresh WRITE tokens for every block of the file, from the NameNode (this client holds the lease). The open
   * writers carry the old tokens, so they are drained and closed first; the next write opens one with the new token.
   */
  private void renewTokens() throws IOException {
    try {
      for (BlockWriter writer : writers.values()) {
        writer.flush();
      }
    } catch (FffsException e) {
      resendRefused(e);  // leaves flushed writers with fresh tokens
      return;
    }
    closeWriters();
    fetchTokens();
  }

  private void closeWriters() throws IOException {
    try {
      for (Map.Entry<Long, BlockWriter> writer : writers.entrySet()) {
        closeWriter(writer.getKey(), writer.getValue());
        keepMembers(writer.getKey(), writer.getValue());
      }
    } finally {
      writers.clear();
      unacked.clear();
    }
  }

  /**
   * Closes a writer; a refusal of its token on the way (a follower refusing to end the pipeline, say) is met once
   * with fresh tokens from the NameNode and a second close.
   */
  private void closeWriter(long blockId, BlockWriter writer) throws IOException {
    try {
      writer.close();
    } catch (FffsException e) {
      if (e.code() != ErrorCode.ACCESS_DENIED || resending || !writer.renewsInPlace()) {
        throw e;
      }
      LOG.info("A DataNode refused the token of the writer of block {} of {} as it closed; asking the NameNode for"
          + " fresh tokens: {}", blockId, path, e.getMessage());
      resending = true;
      try {
        fetchTokens();
        writer.renewToken(blockTokens.get(blockIds.indexOf(blockId)));
        writer.close();
      } catch (IOException again) {
        again.addSuppressed(e);
        throw again;
      } finally {
        resending = false;
      }
    }
  }

  private void fetchTokens() throws IOException {
    LocatedBlocksProto located = call(() -> nn.getBlockLocations(path, TimeSpec.latest(), 0, Long.MAX_VALUE,
        client.clientName()));
    if (located == null) {
      throw new FffsException(ErrorCode.NOT_FOUND, path + " no longer exists; its writer cannot renew its tokens");
    }
    for (LocatedBlockProto block : located.getBlocksList()) {
      int index = blockIds.indexOf(block.getBlock().getBlockId());
      if (index >= 0) {
        blockTokens.set(index, block);
      }
    }
  }

  /**
   * The last entry of each block written through this stream, with the pipeline members that hold it (they all
   * acknowledged it) and the block's length: the NameNode lists no replica reporting an older one. Only those not
   * told yet when {@code onlyNew}.
   */
  private List<BlockLastEntryProto> lastEntries(boolean onlyNew) {
    List<BlockLastEntryProto> entries = new ArrayList<>();
    for (Map.Entry<Long, BlockWriter> e : writers.entrySet()) {
      long hlc = e.getValue().lastEntryHlc().packed();
      int index = blockIds.indexOf(e.getKey());
      if (hlc == 0 || index < 0 || (onlyNew && reportedEntries.getOrDefault(e.getKey(), 0L) >= hlc)) {
        continue;
      }
      BlockLastEntryProto.Builder entry = BlockLastEntryProto.newBuilder().setBlockId(e.getKey())
          .setLastEntryHlc(hlc).setLength(Math.max(0, Math.min(blockSize, length - index * blockSize)));
      e.getValue().replicas().forEach(datanode -> entry.addDatanodeUuids(datanode.getDatanodeUuid()));
      entries.add(entry.build());
    }
    return entries;
  }

  private BlockProto lastBlock() {
    if (blockIds.isEmpty()) {
      return null;
    }
    int last = blockIds.size() - 1;
    return BlockProto.newBuilder().setBlockId(blockIds.get(last)).setNumBytes(length - last * blockSize).build();
  }

  private void drain() throws IOException {
    sendPacket();
    try {
      for (Map.Entry<Long, BlockWriter> writer : List.copyOf(writers.entrySet())) {
        flushOrFailOver(writer.getKey(), writer.getValue());
      }
    } catch (FffsException e) {
      resendRefused(e);
    }
    for (Map.Entry<Long, BlockWriter> writer : writers.entrySet()) {
      if (writer.getKey().equals(blockIds.get(blockIds.size() - 1))) {
        repair.repair(writer.getKey(), writer.getValue(), wanted.getOrDefault(writer.getKey(), 0),
            failover.lostPrimaries(writer.getKey()));
      }
      keepMembers(writer.getKey(), writer.getValue());
    }
  }

  /** Flushes {@code writer}; a failure other than a refused token has a follower take over from its primary. */
  private void flushOrFailOver(long blockId, BlockWriter writer) throws IOException {
    try {
      writer.flush();
    } catch (FffsException e) {
      if (e.code() == ErrorCode.ACCESS_DENIED) {
        throw e;
      }
      failOver(blockId, writer, e);
    } catch (IOException e) {
      failOver(blockId, writer, e);
    }
  }

  /**
   * The primary of {@code blockId}'s pipeline was lost ({@code cause}): a follower takes over
   * ({@link PrimaryFailover}); anything else, or a failure while sending again after a refused token, is thrown.
   */
  private void failOver(long blockId, BlockWriter failed, IOException cause) throws IOException {
    UnackedWrites copies = unacked.get(blockId);
    if (resending || !PrimaryFailover.canTakeOver(failed, copies, cause)) {
      throw cause;
    }
    failover.failOver(blockId, failed, copies, cause);
  }

  @Override
  public synchronized void flush() throws IOException {
    checkOpen();
    sendPacket();
  }

  /**
   * Every byte written so far is applied on every DataNode still in its block's pipeline and visible to new
   * readers: a reader of an open file takes its
   * last block's length from the DataNode, so this needs no NameNode call (as in HDFS). Should this client die,
   * lease recovery closes the file at the length the DataNode reports.
   */
  @Override
  public synchronized void hflush() throws IOException {
    checkOpen();
    drain();
  }

  /**
   * {@link #hflush}, every block written to is durable on each of its DataNodes still in its pipeline (synced in
   * parallel), and the NameNode records the length. A follower that fails its SYNC leaves the pipeline; a primary
   * lost after the flush is succeeded by a follower ({@link PrimaryFailover}) and the new pipeline synced.
   */
  @Override
  public synchronized void hsync() throws IOException {
    hflush();
    WriteFaultInjector.get().beforeSync(path);
    syncBlocks();
    BlockProto last = lastBlock();
    List<BlockLastEntryProto> entries = lastEntries(true);
    if (last != null && (length != reportedLength || !entries.isEmpty())) {
      call(() -> {
        nn.fsync(path, fileId, client.clientName(), last, entries);
        return null;
      });
      reportedLength = length;
      entries.forEach(e -> reportedEntries.put(e.getBlockId(), e.getLastEntryHlc()));
    }
  }

  private void syncBlocks() throws IOException {
    for (long blockId : unsynced) {
      if (blockTokens.due(blockIds.indexOf(blockId))) {
        renewTokens();
        break;
      }
    }
    try {
      syncUnsynced();
    } catch (FffsException e) {
      if (e.code() != ErrorCode.ACCESS_DENIED || resending) {
        throw e;
      }
      // A SYNC changes no byte, so asking again with fresh tokens is safe; the flushed writers carry the old ones.
      LOG.info("A DataNode refused the token of a SYNC of {}; asking the NameNode for fresh tokens: {}", path,
          e.getMessage());
      closeWriters();
      fetchTokens();
      resending = true;
      try {
        syncUnsynced();
      } catch (FffsException again) {
        again.addSuppressed(e);
        throw again;
      } finally {
        resending = false;
      }
    }
  }

  private void syncUnsynced() throws IOException {
    for (int round = 1; !syncOnce(round < PrimaryFailover.ATTEMPTS); round++) {
      // A primary lost between the flush and its SYNC was succeeded: the new pipelines are synced again.
    }
    unsynced.clear();
  }

  /**
   * SYNCs every unsynced block on each DataNode of its pipeline, in parallel. A follower that fails leaves the
   * pipeline; a primary lost meanwhile is succeeded by a follower (when {@code mayFailOver}), and then this returns
   * false: the blocks are to be synced again on their new pipelines (a SYNC changes no byte).
   */
  private boolean syncOnce(boolean mayFailOver) throws IOException {
    Map<DatanodeIdProto, List<Long>> byDatanode = new HashMap<>();
    Map<DatanodeIdProto, List<BlockToken>> tokens = new HashMap<>();
    Map<DatanodeIdProto, List<Long>> lengths = new HashMap<>();
    for (long blockId : unsynced) {
      int index = blockIds.indexOf(blockId);
      for (DatanodeIdProto location : blockLocations.get(index)) {
        byDatanode.computeIfAbsent(location, d -> new ArrayList<>()).add(blockId);
        // What this stream has written up to in the block: a DataNode that lost some must not report it durable.
        lengths.computeIfAbsent(location, d -> new ArrayList<>()).add(Math.min(blockSize,
            length - index * blockSize));
        if (blockTokens.get(index) != null) {
          tokens.computeIfAbsent(location, d -> new ArrayList<>()).add(blockTokens.get(index));
        }
      }
    }
    Map<DatanodeIdProto, CompletableFuture<HlcTimestamp>> syncs = new HashMap<>();
    for (Map.Entry<DatanodeIdProto, List<Long>> entry : byDatanode.entrySet()) {
      syncs.put(entry.getKey(), client.data().syncAsync(entry.getKey(), entry.getValue(),
          tokens.getOrDefault(entry.getKey(), List.of()), lengths.get(entry.getKey())));
    }
    boolean failedOver = false;
    for (Map.Entry<DatanodeIdProto, CompletableFuture<HlcTimestamp>> sync : syncs.entrySet()) {
      try {
        sync.getValue().join();
      } catch (CompletionException e) {
        IOException cause = e.getCause() instanceof IOException ? (IOException) e.getCause()
            : new IOException("SYNC to " + sync.getKey().getHost() + ":" + sync.getKey().getDataPort() + " failed: "
                + e.getCause(), e.getCause());
        // A refused token is asked again with fresh ones (syncBlocks); any other failure drops a follower.
        boolean refused = cause instanceof FffsException typed && typed.code() == ErrorCode.ACCESS_DENIED;
        if (refused && !resending) {
          throw cause;
        }
        for (long blockId : byDatanode.get(sync.getKey())) {
          if (!sync.getKey().equals(blockLocations.get(blockIds.indexOf(blockId)).get(0))) {
            dropFollower(sync.getKey(), blockId, cause);
          } else if (refused || !mayFailOver || !writers.containsKey(blockId)) {
            throw cause;
          } else {
            failOver(blockId, writers.get(blockId), cause);
            failedOver = true;
          }
        }
      }
    }
    return !failedOver;
  }

  /**
   * A DataNode refused a write with {@code ACCESS_DENIED} (the key of its token unknown to it or expired): asks the
   * NameNode for fresh tokens once; a writer that keeps its unapplied writes itself (a replicated pipeline) carries
   * on with the fresh token, any other is replaced by a new writer sent again every write its DataNode did not
   * apply, in order, from this stream's copies. Every writer is then flushed, so that a second refusal fails the
   * write here. Anything else, or a writer that cannot tell what was applied, is thrown.
   */
  private void resendRefused(FffsException refusal) throws IOException {
    if (refusal.code() != ErrorCode.ACCESS_DENIED || resending) {
      throw refusal;
    }
    resending = true;
    try {
      Map<Long, List<UnackedWrites.Remainder>> resend = new HashMap<>();
      for (Map.Entry<Long, BlockWriter> entry : writers.entrySet()) {
        BlockWriter writer = entry.getValue();
        if (writer.renewsInPlace()) {
          continue;
        }
        try {
          writer.flush();  // the writers that were not refused finish what they have in flight
        } catch (FffsException e) {
          if (e.code() != ErrorCode.ACCESS_DENIED) {
            throw e;
          }
        }
        UnackedWrites copies = unacked.get(entry.getKey());
        long acknowledged = writer.acknowledgedBytes();
        if (copies == null || acknowledged < 0) {
          throw refusal;
        }
        resend.put(entry.getKey(), copies.after(acknowledged));
      }
      LOG.info("A DataNode refused the token of a writer of {}; asking the NameNode for fresh tokens ({} writers"
          + " resume, {} unapplied writes sent again through new ones): {}", path, writers.size() - resend.size(),
          resend.values().stream().mapToInt(List::size).sum(), refusal.getMessage());
      fetchTokens();
      for (Map.Entry<Long, BlockWriter> entry : List.copyOf(writers.entrySet())) {
        long blockId = entry.getKey();
        BlockWriter writer = entry.getValue();
        if (writer.renewsInPlace()) {
          writer.renewToken(blockTokens.get(blockIds.indexOf(blockId)));
        } else {
          try {
            writer.close();
          } catch (IOException e) {
            // A refused writer reports its refusal again on closing; closing only releases its connections.
          }
          writers.remove(blockId);
          unacked.remove(blockId);
        }
        keepMembers(blockId, writer);
      }
      for (Map.Entry<Long, List<UnackedWrites.Remainder>> blockWrites : resend.entrySet()) {
        BlockWriter writer = writerFor(blockIds.indexOf(blockWrites.getKey()));
        UnackedWrites copies = unacked.get(blockWrites.getKey());
        for (UnackedWrites.Remainder write : blockWrites.getValue()) {
          ByteBuffer bytes = write.bytes();
          if (copies != null) {
            copies.add(write.offset(), bytes.array(), bytes.position(), bytes.remaining(),
                writer.acknowledgedBytes());
          }
          writer.write(write.offset(), bytes);
        }
      }
      for (BlockWriter writer : writers.values()) {
        writer.flush();
      }
    } catch (FffsException e) {
      if (e != refusal) {
        e.addSuppressed(refusal);
      }
      throw e;
    } finally {
      resending = false;
    }
  }

  /** A follower that failed a SYNC leaves the pipeline of {@code blockId}: it gets no more packets or SYNCs. */
  private void dropFollower(DatanodeIdProto datanode, long blockId, IOException cause) {
    BlockWriter writer = writers.get(blockId);
    if (writer != null) {
      writer.drop(datanode, cause);
    }
    int index = blockIds.indexOf(blockId);
    List<DatanodeIdProto> locations = new ArrayList<>(blockLocations.get(index));
    locations.remove(datanode);
    blockLocations.set(index, List.copyOf(locations));
  }

  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    IOException failed = null;
    try {
      drain();
      for (Map.Entry<Long, BlockWriter> writer : writers.entrySet()) {
        closeWriter(writer.getKey(), writer.getValue());
      }
      BlockProto last = lastBlock();
      List<BlockLastEntryProto> entries = lastEntries(false);
      call(() -> nn.complete(path, fileId, client.clientName(), last, entries));
    } catch (IOException e) {
      failed = e;
      throw e;
    } finally {
      closed = true;
      // After a failure some writers are still open: release their connections (closing is idempotent).
      for (BlockWriter writer : writers.values()) {
        try {
          writer.close();
        } catch (IOException e) {
          if (failed != null) {
            failed.addSuppressed(e);
          }
        }
      }
      writers.clear();
      client.closed(this);
    }
  }

  @Override
  @SuppressWarnings("deprecation")  // HFLUSH/HSYNC are deprecated in favour of StreamCapabilities.hasCapability
  public boolean hasCapability(String capability) {
    switch (capability.toLowerCase(Locale.ROOT)) {
      case StreamCapabilities.HFLUSH:
      case StreamCapabilities.HSYNC:
        return true;
      default:
        return false;
    }
  }

  String path() {
    return path;
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException(FSExceptionMessages.STREAM_IS_CLOSED + ": " + path);
    }
  }

  private static <T> T call(ClientErrors.Action<T> call) throws IOException {
    return ClientErrors.translating(call);
  }
}
