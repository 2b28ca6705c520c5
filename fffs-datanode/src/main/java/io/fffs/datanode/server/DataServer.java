package io.fffs.datanode.server;

import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.security.BlockTokenVerifier;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.datanode.store.BlockStore;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.protocol.frame.FrameDecoder;
import io.fffs.protocol.netty.EventLoops;
import io.fffs.protocol.netty.KeptBufferAllocator;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DataNode's data-transfer server (docs/design.md §6): Netty over TCP, epoll where available.
 *
 * <p>Threads:
 * <ul>
 *   <li><b>event loops</b> ({@code fffs-data-io-*}) decode frames ({@link FrameDecoder}: length-prefixed protobuf
 *       header, payload as a slice of the receive buffer), verify each WRITE's CRC32C per 512-byte chunk and
 *       enqueue it into the bounded write ring; when the ring is full they stop reading that connection
 *       (auto-read off) instead of blocking.</li>
 *   <li><b>the store writer</b> ({@code fffs-store-writer}, {@link StoreWriter}) applies writes in arrival order:
 *       refuses them if the NameNode said this node is unhealthy, merges the client's HLC (refusing
 *       {@code CLOCK_SKEW}), calls {@code store.write}, and sends the ack with the entry HLC, the block length and
 *       the DataNode's HLC. Paper §6.2: network → ring buffer → log. A small write that finds the ring empty and
 *       nothing being applied is applied by its event loop instead ({@code fffs.datanode.write.inline-max-bytes}),
 *       sparing the two thread hand-offs that dominate a small write's latency. A write of a chain pipeline is
 *       forwarded to the next member once applied and answered once that member answered ({@link ChainLink}).</li>
 *   <li><b>handlers</b> ({@code fffs-data-handler-*}, {@link QueryService}) serve READ (zero-copy file regions
 *       after a header carrying the payload's chunk CRCs), BLOCK_INFO and SYNC, which may wait for the clock or
 *       the disk.</li>
 * </ul>
 * Every request is checked for its block access token on the event loop before it is queued ({@link BlockAccess});
 * a refused WRITE still takes its place in the ring so that its error answer keeps its place among the acks.
 * Every error goes back as an {@code ErrorProto} with the request's callId; a malformed or oversized frame closes
 * only its connection. Responses set {@code TCP_NODELAY}: each is a complete message, and Nagle would only hold back
 * its last segment.
 */
public final class DataServer implements java.io.Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(DataServer.class);
  /**
   * Socket reads of a connection are sized between these (Netty's adaptive guess: larger after reads that filled
   * their buffer, smaller after short ones). Frames are sliced out of the reads as they are (composite cumulation),
   * so a WRITE payload's only copy is the store's, into the arena: from its one read, or piece by piece from the
   * reads it spans ({@link PayloadWrite}); reads up to 1 MiB keep most packets within one read.
   */
  private static final int MIN_READ_BYTES = 64;
  private static final int INITIAL_READ_BYTES = 64 * 1024;
  private static final int MAX_READ_BYTES = 1024 * 1024;
  /** Released socket-read buffers kept for reuse, at most ({@link KeptBufferAllocator}). */
  private static final long KEPT_READ_BUFFER_BYTES = 64L << 20;

  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final ExecutorService handlers;
  private final StoreWriter writer;
  private final Channel serverChannel;
  private final DataServerStats stats;
  private final KeptBufferAllocator buffers;

  private DataServer(EventLoopGroup boss, EventLoopGroup workers, ExecutorService handlers, StoreWriter writer,
      Channel serverChannel, DataServerStats stats, KeptBufferAllocator buffers) {
    this.boss = boss;
    this.workers = workers;
    this.handlers = handlers;
    this.writer = writer;
    this.serverChannel = serverChannel;
    this.stats = stats;
    this.buffers = buffers;
  }

  /**
   * Binds {@code fffs.datanode.data-address} and starts serving {@code store}.
   *
   * @param rules what every write goes through (health, HLC merge, answers; {@link WriteRules})
   * @param blockKeys checks the block token of every request ({@link BlockAccess})
   */
  public static DataServer start(Configuration conf, BlockStore store, WriteRules rules,
      BlockTokenVerifier blockKeys) throws IOException {
    HybridLogicalClock clock = rules.clock();
    DataTransferConfigKeys.transport(conf);
    int maxFrame = DataTransferConfigKeys.maxFrameSize(conf);
    DataServerStats stats = new DataServerStats();
    ReadGate gate = new ReadGate();
    EventLoopGroup workers = EventLoops.newGroup(DataNodeServiceConfigKeys.serverIoThreads(conf), "fffs-data-io",
        true);
    StoreWriter writer = new StoreWriter(store, rules, stats, DataNodeServiceConfigKeys.writeQueueCapacity(conf),
        "fffs-store-writer", inlineWriteMaxBytes(conf), gate, new ChainConnector(conf, workers));
    ExecutorService handlers = Executors.newFixedThreadPool(DataNodeServiceConfigKeys.serverHandlerThreads(conf),
        new DefaultThreadFactory("fffs-data-handler", true));
    QueryService queries = new QueryService(store, rules, handlers, stats, DataTransferConfigKeys.maxPayload(conf),
        gate, new io.fffs.datanode.replication.BlockTransfer(conf, store, clock),
        conf.getBoolean(DataNodeServiceConfigKeys.SHORT_CIRCUIT_KEY, DataNodeServiceConfigKeys.SHORT_CIRCUIT_DEFAULT));
    EventLoopGroup boss = EventLoops.newGroup(1, "fffs-data-accept", true);
    InetSocketAddress bind = DataNodeServiceConfigKeys.dataAddress(conf);
    io.netty.handler.ssl.SslContext tls = io.fffs.protocol.DataTransferTls.server(conf);  // null: no TLS
    KeptBufferAllocator buffers = new KeptBufferAllocator(INITIAL_READ_BYTES, MAX_READ_BYTES,
        KEPT_READ_BUFFER_BYTES, ByteBufAllocator.DEFAULT, stats.receiveBuffersAllocated, stats.receiveBuffersReused);
    try {
      Channel channel = new ServerBootstrap().group(boss, workers).channel(EventLoops.serverChannel())
          .option(ChannelOption.SO_REUSEADDR, true)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childOption(ChannelOption.SO_KEEPALIVE, true)
          .childOption(ChannelOption.ALLOCATOR, buffers)
          .childOption(ChannelOption.RCVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator(MIN_READ_BYTES,
              INITIAL_READ_BYTES, MAX_READ_BYTES))
          .childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              if (tls != null) {
                ch.pipeline().addLast(tls.newHandler(ch.alloc()));
              }
              ch.pipeline().addLast(
                  new FrameDecoder<>(RequestHeaderProto.parser(), maxFrame, DataTransferConfigKeys.MAX_FRAME_SIZE_KEY,
                      true),
                  new RequestHandler(writer, queries, stats, blockKeys));
            }
          })
          .bind(bind).syncUninterruptibly().channel();
      writer.start();
      DataServer server = new DataServer(boss, workers, handlers, writer, channel, stats, buffers);
      LOG.info("Data server listening on {} ({}, max frame {} bytes)", server.address(),
          EventLoops.epoll() ? "epoll" : "nio", maxFrame);
      return server;
    } catch (RuntimeException e) {
      boss.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      workers.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      handlers.shutdownNow();
      throw new IOException("cannot start the data server on " + bind + " ("
          + DataNodeServiceConfigKeys.DATA_ADDRESS_KEY + "): " + e.getMessage(), e);
    }
  }

  /**
   * The largest WRITE an event loop applies itself when the write path is idle ({@link StoreWriter}); 0 turns it
   * off. Small, because the loop serves its other connections only after the write is in the store.
   */
  public static final String INLINE_WRITE_MAX_KEY = "fffs.datanode.write.inline-max-bytes";
  public static final long INLINE_WRITE_MAX_DEFAULT = 16 * 1024;

  static int inlineWriteMaxBytes(Configuration conf) {
    long max = conf.getLongBytes(INLINE_WRITE_MAX_KEY, INLINE_WRITE_MAX_DEFAULT);
    if (max < 0 || max > DataTransferConfigKeys.maxPayload(conf)) {
      throw new IllegalArgumentException(INLINE_WRITE_MAX_KEY + " must be from 0 to "
          + DataTransferConfigKeys.maxPayload(conf) + " bytes, got " + conf.get(INLINE_WRITE_MAX_KEY));
    }
    return (int) max;
  }

  /** The bound address (with the real port when 0 was configured). */
  public InetSocketAddress address() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  public DataServerStats stats() {
    return stats;
  }

  /** Stops accepting, closes every connection, applies the writes already queued and stops the threads. */
  @Override
  public void close() throws IOException {
    try {
      serverChannel.close().awaitUninterruptibly();
      boss.shutdownGracefully(0, 0, TimeUnit.SECONDS).await();
      workers.shutdownGracefully(0, 0, TimeUnit.SECONDS).await();
      writer.stop();
      handlers.shutdown();
      if (!handlers.awaitTermination(10, TimeUnit.SECONDS)) {
        handlers.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      handlers.shutdownNow();
      throw new java.io.InterruptedIOException("interrupted stopping the data server");
    } finally {
      buffers.close();
    }
  }
}
