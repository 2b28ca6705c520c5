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
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;

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
 * or expired) makes the writer ask for fresh tokens once and send again what was not applied
 * ({@link TokenRenewal}). A pipeline whose primary is lost goes on with a follower as primary
 * ({@link PrimaryFailover}); one that lost followers gets replacements at the next flush ({@link PipelineRepair}).
 * A failure none of these recovers from fails the stream for good: every later call throws it, close included.
 * Each block's DataNodes, token and open writer are in {@link BlockPipelines}.
 */
final class FffsOutputStream extends OutputStream implements Syncable, StreamCapabilities {
  private final FffsClient client;
  private final NamenodeClient nn;
  private final String path;
  private final long fileId;
  private final long blockSize;
  private final WriteOptions options;
  private final BlockPipelines blocks;
  private final TokenRenewal tokens;
  private final PipelineSync syncs;
  private final PipelineRepair repair;
  private final PrimaryFailover failover;
  /**
   * Where write calls gather a packet; handed to {@link UnackedWrites} when full, and replaced by a spare. Made at the
   * first byte gathered: a 1 MiB array zeroed at every create made an empty file's create+close a quarter slower.
   */
  private byte[] packet;
  private final int packetSize;
  /** Latency mode: every write call goes out as its own packet (one block-log entry, one user-time stamp). */
  private final boolean sendEachWrite;
  private int packetLength;
  private long packetStart;
  private long length;
  private long reportedLength = -1;
  /** Per block, the last entry the NameNode was told of (fsync). */
  private final Map<Long, Long> reportedEntries = new HashMap<>();
  private boolean closed;
  /**
   * Set once a failed write could not be recovered (no follower took over, sending again after a refused token
   * failed, a new block's writer could not be opened or its block not added, an hsync's SYNCs lost a primary too
   * often or were refused their fresh tokens): bytes the stream counts as written may be in no replica, so every later
   * call fails with it.
   */
  private FffsException failed;

  FffsOutputStream(FffsClient client, String path, long fileId, long blockSize, String userTimePlugin,
      List<LocatedBlockProto> existing, long length, long position, int packetSize, boolean sendEachWrite) {
    this.client = client;
    this.nn = client.namenode();
    this.path = path;
    this.fileId = fileId;
    this.blockSize = blockSize;
    this.options = new WriteOptions(blockSize, userTimePlugin);
    this.blocks = new BlockPipelines(client.clock().physicalClock());
    this.tokens = new TokenRenewal(client, path, blocks, this::writerFor);
    this.failover = new PrimaryFailover(client::data, options, path, blocks);
    this.syncs = new PipelineSync(client::data, path, blockSize, blocks, tokens, this::failOver, this::fail);
    this.repair = new PipelineRepair(client.conf(), nn, path, fileId, client.clientName());
    existing.forEach(blocks::add);
    this.length = length;
    this.reportedLength = length;
    this.packetStart = position;
    this.packetSize = packetSize;
    this.sendEachWrite = sendEachWrite;
  }

  @Override
  public synchronized void write(int b) throws IOException {
    checkOpen();
    if (packetLength == packetSize) {
      sendPacket();
    }
    packet()[packetLength++] = (byte) b;
    if (sendEachWrite) {
      sendPacket();
    }
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) throws IOException {
    checkOpen();
    while (len > 0) {
      if (packetLength == packetSize) {
        sendPacket();
      }
      if (packetLength == 0 && len >= packetSize) {
        // A whole packet lies in the caller's array: it goes out from there (a block writer copies what it sends
        // before it returns) instead of through the packet buffer, one pass over the bytes fewer.
        send(b, off, packetSize);
        off += packetSize;
        len -= packetSize;
        continue;
      }
      int n = Math.min(len, packetSize - packetLength);
      System.arraycopy(b, off, packet(), packetLength, n);
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
    if (packetLength > 0) {
      send(packet, 0, packetLength);
      packetLength = 0;
    }
  }

  private byte[] packet() {
    if (packet == null) {
      packet = new byte[packetSize];
    }
    return packet;
  }

  /** Sends {@code count} bytes of {@code bytes} from {@code from} at the write position, split at block ends. */
  private void send(byte[] bytes, int from, int count) throws IOException {
    int sent = 0;
    while (sent < count) {
      long at = packetStart + sent;
      int index = (int) (at / blockSize);
      long inBlock = at - index * blockSize;
      int n = (int) Math.min(count - sent, blockSize - inBlock);
      BlockWriter writer;
      try {
        writer = writerFor(index);
      } catch (IOException e) {
        throw fail(stopped(e, at, sent));
      }
      long blockId = blocks.id(index);
      UnackedWrites copies = blocks.copies(blockId);
      // A kept write stays unchanged until acknowledged: the writer may keep it by reference instead of a copy.
      ByteBuffer kept = null;
      if (copies != null && bytes == packet && from == 0 && n == packetSize) {
        // The stream's own full packet, all in one block: kept as it is, one pass over the bytes fewer.
        kept = copies.handOver(inBlock, bytes, writer.acknowledgedBytes());
        packet = copies.spare(packetSize);
      } else if (copies != null) {
        kept = copies.add(inBlock, bytes, from + sent, n, writer.acknowledgedBytes());
      }
      try {
        if (kept != null) {
          writer.writeRetained(inBlock, kept);
        } else {
          writer.write(inBlock, ByteBuffer.wrap(bytes, from + sent, n));
        }
      } catch (FffsException e) {
        if (e.code() != ErrorCode.ACCESS_DENIED) {
          failOver(blockId, writer, e);
        } else {
          resendRefused(e);  // this write is among the copies: sent again
        }
      } catch (IOException e) {
        failOver(blockId, writer, e);  // this write is among the copies: sent again
      }
      syncs.written(blockId);
      sent += n;
    }
    packetStart += count;
    length = Math.max(length, packetStart);
  }

  /**
   * The failure {@code cause} met before byte {@code at} was sent, {@code sent} bytes into a send (a new block refused
   * by the NameNode, fresh tokens not had): the caller cannot tell which of its bytes went out, and the stream no
   * longer knows where the next write goes, so the stream fails (as HDFS's does). What its DataNodes acknowledged
   * stays, and an append goes on from there.
   */
  private FffsException stopped(IOException cause, long at, int sent) {
    if (cause == failed) {
      return failed;  // failed already, and said so
    }
    FffsException typed = cause instanceof FffsException f ? f : null;
    return new FffsException(typed != null ? typed.code() : ErrorCode.IO_ERROR, "a write to " + path + " stopped at"
        + " byte " + at + (sent > 0 ? ", " + sent + " bytes into what it was sending," : "") + " and this stream is"
        + " failed: " + (typed != null ? typed.detail() : cause.getMessage()) + ". The bytes before it that its"
        + " DataNodes acknowledged are kept; open " + path + " for append to write on from there", cause);
  }

  private BlockWriter writerFor(int index) throws IOException {
    while (blocks.count() <= index) {
      addBlock();
    }
    long blockId = blocks.id(index);
    BlockWriter writer = blocks.writer(blockId);
    if (blocks.tokenDue(index) || WriteFaultInjector.get().tokenDue(path, blockId, blocks.locations(index))) {
      // Its packets would outlive the token: go on with a fresh token (renewing closes the writers). They are
      // drained here first, so that a primary lost meanwhile is succeeded as in any flush.
      flushAll();
      tokens.renewTokens();
      writer = blocks.writer(blockId);
    }
    if (writer == null) {
      List<DatanodeIdProto> locations = blocks.locations(index);
      if (locations.isEmpty()) {
        throw fail(new FffsException(ErrorCode.NOT_FOUND, "block " + blockId + " of " + path
            + " has no live DataNode to write to"));
      }
      BlockToken token = blocks.token(index);
      long acknowledged = blocks.lastEntry(blockId);
      if (acknowledged != 0 && locations.size() > 1) {
        // Its last writer was closed to renew the token: a primary lost since is succeeded as in a failover.
        try {
          writer = failover.reopen(blockId, locations, HlcTimestamp.valueOf(acknowledged));
        } catch (IOException e) {
          throw fail(e);
        }
      } else {
        try {
          writer = client.data().openWriter(locations, blockId, token, options);
        } catch (IOException e) {
          // The call stopped part-way through its bytes (the position not advanced): a retry could place them twice.
          throw fail(e instanceof FffsException ? e : new FffsException(ErrorCode.IO_ERROR, "cannot open block "
              + blockId + " of " + path + " on " + locations.stream().map(PrimaryFailover::address).toList()
              + ": " + e.getMessage(), e));
        }
      }
      // A pipeline's copies are what a promoted follower is sent again should its primary fail.
      blocks.opened(index, writer, (token != null && !writer.renewsInPlace() && writer.acknowledgedBytes() >= 0)
          || writer.replicas().size() > 1);
    }
    return writer;
  }

  /** Drains the current last block, then asks the NameNode for the next one. */
  private void addBlock() throws IOException {
    BlockProto previous = null;
    if (blocks.count() > 0) {
      long last = blocks.id(blocks.count() - 1);
      BlockWriter writer = blocks.writer(last);
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
    blocks.add(call(() -> nn.addBlock(path, fileId, client.clientName(), full)));
  }

  /**
   * The last entry of each block written through this stream, with the pipeline members that hold it (they all
   * acknowledged it, or were brought up to it when a follower took over) and the block's length: the NameNode lists
   * no replica reporting an older one. Only those not told yet when {@code onlyNew}.
   */
  private List<BlockLastEntryProto> lastEntries(boolean onlyNew) {
    List<BlockLastEntryProto> entries = new ArrayList<>();
    for (long blockId : blocks.written()) {
      long hlc = blocks.lastEntry(blockId);
      int index = blocks.index(blockId);
      if (hlc == 0 || (onlyNew && reportedEntries.getOrDefault(blockId, 0L) >= hlc)) {
        continue;
      }
      BlockLastEntryProto.Builder entry = BlockLastEntryProto.newBuilder().setBlockId(blockId)
          .setLastEntryHlc(hlc).setLength(Math.max(0, Math.min(blockSize, length - index * blockSize)));
      BlockWriter writer = blocks.writer(blockId);
      List<DatanodeIdProto> members = writer != null ? writer.replicas() : blocks.locations(index);
      members.forEach(datanode -> entry.addDatanodeUuids(datanode.getDatanodeUuid()));
      entries.add(entry.build());
    }
    return entries;
  }

  private BlockProto lastBlock() {
    if (blocks.count() == 0) {
      return null;
    }
    int last = blocks.count() - 1;
    return BlockProto.newBuilder().setBlockId(blocks.id(last)).setNumBytes(length - last * blockSize).build();
  }

  private void drain() throws IOException {
    sendPacket();
    flushAll();
    for (Map.Entry<Long, BlockWriter> writer : blocks.writers().entrySet()) {
      long blockId = writer.getKey();
      if (blockId == blocks.id(blocks.count() - 1)) {
        repair.repair(blockId, writer.getValue(), blocks.wanted(blockId), failover.lost(blockId));
      }
      blocks.keepMembers(blockId, writer.getValue());
    }
  }

  /** Flushes every open writer: a lost primary is succeeded, a refused token renewed and the refused sent again. */
  private void flushAll() throws IOException {
    try {
      for (Map.Entry<Long, BlockWriter> writer : List.copyOf(blocks.writers().entrySet())) {
        flushOrFailOver(writer.getKey(), writer.getValue());
      }
    } catch (FffsException e) {
      resendRefused(e);
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
   * ({@link PrimaryFailover}); anything else, or a failure while sending again after a refused token, is thrown
   * and fails the stream.
   */
  private void failOver(long blockId, BlockWriter writer, IOException cause) throws IOException {
    if (writer == null) {
      // A SYNC met the loss after a token renewal closed the block's writer: its pipeline is reopened without it.
      int index = blocks.index(blockId);
      if (tokens.resending() || !PrimaryFailover.lostPrimary(cause) || blocks.locations(index).size() < 2) {
        throw fail(cause);
      }
      writerFor(index);
      return;
    }
    UnackedWrites copies = blocks.copies(blockId);
    if (tokens.resending() || !PrimaryFailover.canTakeOver(writer, copies, cause)) {
      throw fail(cause);
    }
    try {
      failover.failOver(blockId, writer, copies, cause);
    } catch (IOException e) {
      throw fail(e);
    }
  }

  /** A DataNode refused a token: {@link TokenRenewal#resendRefused}; should that fail, the stream fails. */
  private void resendRefused(FffsException refusal) throws IOException {
    try {
      tokens.resendRefused(refusal);
    } catch (IOException e) {
      throw fail(e);
    }
  }

  /** Fails the stream for good with {@code cause} (see {@link #failed}); returns it typed, to be thrown. */
  private FffsException fail(IOException cause) {
    FffsException typed = cause instanceof FffsException f ? f
        : new FffsException(ErrorCode.IO_ERROR, "a write to " + path + " failed: " + cause.getMessage(), cause);
    if (failed == null) {
      failed = typed;
    }
    return typed;
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
   * {@link #hflush}, every block written to is durable on each of its DataNodes still in its pipeline
   * ({@link PipelineSync}), and the NameNode records the length.
   */
  @Override
  public synchronized void hsync() throws IOException {
    hflush();
    WriteFaultInjector.get().beforeSync(path);
    syncs.sync(length);
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

  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    IOException thrown = null;
    try {
      checkFailed();
      drain();
      for (Map.Entry<Long, BlockWriter> writer : blocks.writers().entrySet()) {
        tokens.closeWriter(writer.getKey(), writer.getValue());
      }
      BlockProto last = lastBlock();
      List<BlockLastEntryProto> entries = lastEntries(false);
      call(() -> nn.complete(path, fileId, client.clientName(), last, entries));
    } catch (IOException e) {
      thrown = e;
      throw e;
    } finally {
      closed = true;
      // After a failure some writers are still open: release their connections (closing is idempotent).
      for (BlockWriter writer : blocks.writers().values()) {
        try {
          writer.close();
        } catch (IOException e) {
          if (thrown != null) {
            thrown.addSuppressed(e);
          }
        }
      }
      blocks.clearWriters();
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
    checkFailed();
  }

  /** Nothing reports success once a failed write could not be recovered (neither flushes nor close). */
  private void checkFailed() throws FffsException {
    if (failed != null) {
      throw new FffsException(failed.code(), path + " cannot be written on: an earlier write failed and bytes"
          + " written before it may be in no replica (" + failed.getMessage() + ")", failed);
    }
  }

  private static <T> T call(ClientErrors.Action<T> call) throws IOException {
    return ClientErrors.translating(call);
  }
}
