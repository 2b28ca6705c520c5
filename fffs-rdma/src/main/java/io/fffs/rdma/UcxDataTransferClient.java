package io.fffs.rdma;

import io.fffs.client.data.BlockInfo;
import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferConfigKeys;
import io.fffs.client.data.ReadRequests;
import io.fffs.client.data.ReadResult;
import io.fffs.client.data.WriteOptions;
import io.fffs.client.data.frame.ChunkChecksums;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.ReadResponseProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.transport.TransportSelection;
import io.fffs.rdma.SideChannelFormat.Descriptor;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data-transfer client over UCX (docs/rdma.md). Block data moves one-sided, DataNode-initiated, between the
 * client's registered buffers ({@link RegisteredBuffers}) and the DataNode: writes by {@link UcxBlockWriter}
 * (the DataNode GETs), reads here (the DataNode PUTs into a registered buffer, then answers on the side channel
 * with the chunk CRCs, which are checked before the bytes are copied out: {@code CORRUPT} on a mismatch). BLOCK_INFO,
 * SYNC and TRUNCATE carry no data and go over the TCP client, as does everything for a DataNode that does not
 * advertise UCX or refuses it at connection set-up — unless {@code fffs.transport=ucx}, which makes that an
 * {@code UNSUPPORTED} error. The client's worker thread ({@code fffs-ucx-client}) sleeps until the network wakes
 * it, e.g. for a DataNode's GET, which UCX's tcp transport emulates and the client must serve. Thread-safe.
 */
final class UcxDataTransferClient implements DataTransferClient {
  private static final Logger LOG = LoggerFactory.getLogger(UcxDataTransferClient.class);

  private final DataTransferClient tcp;
  private final HybridLogicalClock clock;
  private final boolean strict;
  private final UcxWorkerLoop loop;
  private final RegisteredBuffers buffers;
  private final ByteBuffer workerAddress;
  private final int window;
  private final int packetSize;
  private final boolean latencyMode;
  private final long timeoutMillis;
  private final int connectTimeoutMillis;
  private final int maxFrame;
  private final int readRequestSize;
  private final int readsInFlight;
  private final Map<String, SideChannel> channels = new ConcurrentHashMap<>();
  private final Map<String, String> tcpOnly = new ConcurrentHashMap<>();
  private final AtomicLong nextStreamId = new AtomicLong(1);
  private final AtomicBoolean closed = new AtomicBoolean();

  UcxDataTransferClient(Configuration conf, HybridLogicalClock clock, DataTransferClient tcp) throws IOException {
    this.tcp = tcp;
    this.clock = clock;
    this.strict = TransportSelection.configured(conf).equals(TransportSelection.UCX);
    this.window = DataTransferConfigKeys.writeWindow(conf);
    this.packetSize = DataTransferConfigKeys.writePacketSize(conf);
    this.latencyMode = DataTransferConfigKeys.latencyMode(conf);
    this.timeoutMillis = DataTransferConfigKeys.responseTimeoutMillis(conf);
    this.connectTimeoutMillis = (int) Math.min(Integer.MAX_VALUE,
        DataTransferConfigKeys.connectTimeoutMillis(conf));
    this.maxFrame = DataTransferConfigKeys.maxFrameSize(conf);
    this.readRequestSize = DataTransferConfigKeys.readRequestSize(conf);
    this.readsInFlight = DataTransferConfigKeys.readRequestsInFlight(conf);
    this.loop = new UcxWorkerLoop("fffs-ucx-client", RdmaConfigKeys.workerSpinNanos(conf));
    try {
      this.buffers = new RegisteredBuffers(loop, RdmaConfigKeys.clientBuffers(conf), RdmaConfigKeys.bufferSize(conf));
      ByteBuffer address = loop.address();
      this.workerAddress = ByteBuffer.allocate(address.remaining()).put(address).flip();
    } catch (IOException | RuntimeException e) {
      loop.close();
      throw e;
    }
  }

  /** The side channel to {@code datanode}, or null to use TCP with it. */
  private SideChannel channel(DatanodeIdProto datanode) throws IOException {
    String key = datanode.getHost() + ":" + datanode.getTransportPort();
    if (!datanode.getTransport().equals(TransportSelection.UCX) || datanode.getTransportPort() == 0) {
      return tcpWith(datanode, key, "it does not offer UCX (its transport is " + datanode.getTransport() + ")");
    }
    String refused = tcpOnly.get(key);
    if (refused != null) {
      return tcpWith(datanode, key, refused);
    }
    SideChannel channel = channels.get(key);
    if (channel != null && channel.usable()) {
      return channel;
    }
    synchronized (this) {
      channel = channels.get(key);
      if (channel != null && channel.usable()) {
        return channel;
      }
      try {
        channel = new SideChannel(new InetSocketAddress(datanode.getHost(), datanode.getTransportPort()),
            workerAddress, connectTimeoutMillis, maxFrame);
      } catch (SideChannel.Refused e) {
        tcpOnly.put(key, "it refused UCX: " + e.getMessage());
        return tcpWith(datanode, key, tcpOnly.get(key));
      }
      channels.put(key, channel);
      return channel;
    }
  }

  private SideChannel tcpWith(DatanodeIdProto datanode, String key, String why) throws FffsException {
    if (strict) {
      throw new FffsException(ErrorCode.UNSUPPORTED, TransportSelection.TRANSPORT_KEY + "=ucx but DataNode "
          + datanode.getHost() + ":" + datanode.getDataPort() + " cannot use UCX: " + why + "; use "
          + TransportSelection.TRANSPORT_KEY + "=auto or tcp");
    }
    if (tcpOnly.putIfAbsent(key + "/logged", why) == null) {
      LOG.info("Using TCP with DataNode {}:{}: {}", datanode.getHost(), datanode.getDataPort(), why);
    }
    return null;
  }

  @Override
  public BlockWriter openWriter(DatanodeIdProto datanode, long blockId, BlockToken token, WriteOptions options)
      throws IOException {
    SideChannel channel = channel(datanode);
    if (channel == null) {
      return tcp.openWriter(datanode, blockId, token, options);
    }
    return new UcxBlockWriter(channel, buffers, clock, blockId, token, options, nextStreamId.getAndIncrement(), window,
        packetSize, latencyMode, timeoutMillis);
  }

  /** One READ in flight: the registered buffer the DataNode PUTs into, where it reads from, and its answer. */
  private record PendingRead(RegisteredBuffers.Slot slot, long at, int asked,
      CompletableFuture<ResponseHeaderProto> response) {}

  /**
   * Reads as the TCP client does: requests of {@code fffs.client.read.request-size} (at most one registered
   * buffer), up to {@code fffs.client.read.requests-in-flight} at once, each into a registered buffer of its own
   * (the first waits for a free one, the others take what is free), answered in order; each answer's chunk CRCs
   * are checked before its bytes are copied out. A registered buffer goes back only once its request is answered
   * (the DataNode PUTs before it answers); one whose request timed out is not used again.
   */
  @Override
  public ReadResult read(DatanodeIdProto datanode, long blockId, BlockToken token, long offset, ByteBuffer dst,
      TimeSpec time) throws IOException {
    SideChannel channel = channel(datanode);
    if (channel == null) {
      return tcp.read(datanode, blockId, token, offset, dst, time);
    }
    int wanted = dst.remaining();
    int requestSize = Math.min(readRequestSize, buffers.slotSize());
    ArrayDeque<PendingRead> inFlight = new ArrayDeque<>();
    int total = 0;
    long sent = 0;
    long blockLength = 0;
    HlcTimestamp resolved = null;
    boolean ended = false;
    int requests = 0;
    try {
      while (true) {
        while (!ended && (sent < wanted || requests == 0) && inFlight.size() < readsInFlight) {
          RegisteredBuffers.Slot slot = inFlight.isEmpty()
              ? buffers.take(timeoutMillis, "a read of block " + blockId) : buffers.tryTake();
          if (slot == null) {
            break;
          }
          int asked = (int) Math.min(wanted - sent, requestSize);
          long at = offset + sent;
          inFlight.add(new PendingRead(slot, at, asked, send(channel, blockId, token, at, asked, time, slot)));
          sent += asked;
          requests++;
        }
        PendingRead next = inFlight.poll();
        if (next == null) {
          break;
        }
        ResponseHeaderProto answer;
        try {
          answer = await(channel, next.response());
        } catch (IOException e) {
          if (next.response().isDone()) { // failed with its channel; a read not answered in time keeps its buffer
            buffers.give(next.slot());
          }
          throw e;
        }
        try {
          ReadResponseProto response = checked(answer).getRead();
          int got = (int) Math.max(0, Math.min(next.asked(), response.getBlockLength() - next.at()));
          ByteBuffer bytes = next.slot().bytes().duplicate().limit(got);
          int bad = ChunkChecksums.firstMismatch(bytes, response.getChunkCrcs());
          if (bad >= 0) {
            throw new FffsException(ErrorCode.CORRUPT, "block " + blockId + " read from DataNode "
                + channel.address() + " over UCX failed its CRC32C check in the 512-byte chunk at offset "
                + (next.at() + (long) bad * ChunkChecksums.CHUNK_BYTES) + " ("
                + ChunkChecksums.count(response.getChunkCrcs()) + " checksums for " + got + " bytes)");
          }
          dst.put(bytes);
          if (resolved == null) {
            resolved = HlcTimestamp.fromProto(response.getResolvedHlc());
            blockLength = response.getBlockLength();
          }
          total += got;
          ended |= got < next.asked();
        } finally {
          buffers.give(next.slot());
        }
        if (ended && !inFlight.isEmpty()) {
          settle(channel, inFlight); // past the end: the answers carry nothing more
        }
      }
    } finally {
      settle(channel, inFlight);
    }
    return new ReadResult(total, blockLength, resolved);
  }

  private CompletableFuture<ResponseHeaderProto> send(SideChannel channel, long blockId, BlockToken token, long at,
      int asked, TimeSpec time, RegisteredBuffers.Slot slot) {
    return channel.send(ReadRequests.of(token, blockId, at, asked, time, clock.last()),
        new Descriptor(slot.address(), buffers.slotSize(), buffers.rkey()), true);
  }

  /**
   * Waits for the answers of reads whose bytes are not wanted (after an error or the block's end) and gives their
   * buffers back; a buffer whose read is not answered in time is kept out of use, as the DataNode may still PUT
   * into it.
   */
  private void settle(SideChannel channel, ArrayDeque<PendingRead> left) {
    for (PendingRead read = left.poll(); read != null; read = left.poll()) {
      try {
        read.response().handle((ok, error) -> null).get(timeoutMillis, TimeUnit.MILLISECONDS);
        buffers.give(read.slot());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        LOG.warn("Interrupted waiting for a UCX read from {}; its registered buffer is not reused",
            channel.address());
      } catch (ExecutionException | TimeoutException e) {
        LOG.warn("A UCX read from {} was not answered within {} ms; its registered buffer is not reused",
            channel.address(), timeoutMillis);
      }
    }
  }

  private ResponseHeaderProto await(SideChannel channel, CompletableFuture<ResponseHeaderProto> response) throws IOException {
    try {
      return response.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for DataNode " + channel.address());
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof IOException ? (IOException) cause : new IOException(cause.toString(), cause);
    } catch (TimeoutException e) {
      throw new IOException("DataNode " + channel.address() + " did not answer over UCX within " + timeoutMillis
          + " ms");
    }
  }

  /** Observes the response's HLC; throws its error as the {@link FffsException} it stands for. */
  private ResponseHeaderProto checked(ResponseHeaderProto response) throws FffsException {
    clock.observe(HlcTimestamp.fromProto(response.getHlc()));
    if (response.hasError()) {
      throw FffsException.fromProto(response.getError());
    }
    return response;
  }

  @Override
  public BlockInfo blockInfo(DatanodeIdProto datanode, long blockId, BlockToken token, TimeSpec time)
      throws IOException {
    return tcp.blockInfo(datanode, blockId, token, time);
  }

  @Override
  public long truncate(DatanodeIdProto datanode, long blockId, BlockToken token, long newLength)
      throws IOException {
    return tcp.truncate(datanode, blockId, token, newLength);
  }

  @Override
  public HlcTimestamp sync(DatanodeIdProto datanode, Collection<Long> blockIds, Collection<BlockToken> tokens,
      Collection<Long> minLengths) throws IOException {
    return tcp.sync(datanode, blockIds, tokens, minLengths);
  }

  @Override
  public void close() throws IOException {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      for (SideChannel channel : channels.values()) {
        channel.close();
      }
      tcp.close();
    } finally {
      loop.close(buffers::deregister);
    }
  }
}
