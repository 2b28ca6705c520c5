package io.fffs.rdma.server;

import io.fffs.common.security.BlockTokenVerifier;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.datanode.ServerTransportProvider;
import io.fffs.datanode.server.WriteRules;
import io.fffs.datanode.store.BlockStore;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.protocol.netty.EventLoops;
import io.fffs.rdma.RdmaConfigKeys;
import io.fffs.rdma.RegisteredBuffers;
import io.fffs.rdma.UcxWorkerLoop;
import io.netty.bootstrap.ServerBootstrap;
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
 * A DataNode's UCX server (docs/rdma.md): the side channel (Netty over TCP, {@link SideChannelFormat}) for control
 * messages, one UCX worker ({@link UcxWorkerLoop}, thread {@code fffs-ucx-dn}) that issues every one-sided
 * operation, registered staging buffers, the arena files registered on first use ({@link MappedFiles}), the write
 * applier ({@link UcxWriteApplier}) and the read handlers ({@link UcxReadService}). It runs beside the TCP data
 * server, which still serves BLOCK_INFO, SYNC and TRUNCATE and every client without UCX.
 */
final class UcxDataServer implements ServerTransportProvider.Server {
  private static final Logger LOG = LoggerFactory.getLogger(UcxDataServer.class);

  private final UcxWorkerLoop loop;
  private final RegisteredBuffers staging;
  private final MappedFiles arena;
  private final UcxWriteApplier writes;
  private final ExecutorService readers;
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final Channel serverChannel;

  private UcxDataServer(UcxWorkerLoop loop, RegisteredBuffers staging, MappedFiles arena, UcxWriteApplier writes,
      ExecutorService readers, EventLoopGroup boss, EventLoopGroup workers, Channel serverChannel) {
    this.loop = loop;
    this.staging = staging;
    this.arena = arena;
    this.writes = writes;
    this.readers = readers;
    this.boss = boss;
    this.workers = workers;
    this.serverChannel = serverChannel;
  }

  static UcxDataServer start(Configuration conf, String host, BlockStore store, WriteRules rules,
      BlockTokenVerifier blockKeys) throws IOException {
    HybridLogicalClock clock = rules.clock();
    long timeout = DataTransferConfigKeys.responseTimeoutMillis(conf);
    int maxFrame = DataTransferConfigKeys.maxFrameSize(conf);
    UcxWorkerLoop loop = new UcxWorkerLoop("fffs-ucx-dn", RdmaConfigKeys.workerSpinNanos(conf));
    EventLoopGroup boss = null;
    EventLoopGroup workers = null;
    ExecutorService readers = null;
    UcxWriteApplier writes = null;
    try {
      RegisteredBuffers staging = new RegisteredBuffers(loop, RdmaConfigKeys.serverBuffers(conf),
          RdmaConfigKeys.bufferSize(conf));
      MappedFiles arena = new MappedFiles(loop);
      writes = new UcxWriteApplier(store, rules, loop, staging, arena,
          RdmaConfigKeys.writeIntoArena(conf), RdmaConfigKeys.writeDepth(conf), timeout);
      readers = Executors.newFixedThreadPool(RdmaConfigKeys.serverReadThreads(conf),
          new DefaultThreadFactory("fffs-ucx-read", true));
      UcxReadService reads = new UcxReadService(store, clock, readers, loop, arena, staging,
          RdmaConfigKeys.sgEntries(conf), timeout);
      boss = EventLoops.newGroup(1, "fffs-ucx-accept", true);
      workers = EventLoops.newGroup(1, "fffs-ucx-io", true);
      UcxWriteApplier applier = writes;
      Channel channel = new ServerBootstrap().group(boss, workers).channel(EventLoops.serverChannel())
          .option(ChannelOption.SO_REUSEADDR, true)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              ch.pipeline().addLast(new UcxServerHandler(loop, applier, reads, clock, maxFrame, blockKeys));
            }
          })
          .bind(new InetSocketAddress(host, RdmaConfigKeys.serverPort(conf))).syncUninterruptibly().channel();
      UcxDataServer server = new UcxDataServer(loop, staging, arena, writes, readers, boss, workers, channel);
      LOG.info("UCX server on side channel {}: {} staging buffers of {} bytes, {} one-sided operations per batch,"
          + " writes {}", channel.localAddress(), RdmaConfigKeys.serverBuffers(conf), RdmaConfigKeys.bufferSize(conf),
          RdmaConfigKeys.sgEntries(conf), RdmaConfigKeys.writeIntoArena(conf) ? "into arena pages" : "staged");
      return server;
    } catch (IOException | RuntimeException e) {
      if (boss != null) {
        boss.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      }
      if (workers != null) {
        workers.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      }
      if (readers != null) {
        readers.shutdownNow();
      }
      if (writes != null) {
        try {
          writes.stop();
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
        }
      }
      loop.close();
      throw new IOException("cannot start the UCX server: " + e.getMessage(), e);
    }
  }

  @Override
  public int port() {
    return ((InetSocketAddress) serverChannel.localAddress()).getPort();
  }

  @Override
  public String toString() {
    return "UCX server on " + serverChannel.localAddress();
  }

  /** Stops accepting, closes the side channels, finishes queued reads and writes, then releases UCX. */
  @Override
  public void close() throws IOException {
    try {
      serverChannel.close().awaitUninterruptibly();
      boss.shutdownGracefully(0, 0, TimeUnit.SECONDS).await();
      workers.shutdownGracefully(0, 0, TimeUnit.SECONDS).await();
      readers.shutdown();
      if (!readers.awaitTermination(10, TimeUnit.SECONDS)) {
        readers.shutdownNow();
      }
      writes.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted stopping the UCX server");
    } finally {
      loop.close(() -> {
        arena.deregisterAll();
        staging.deregister();
      });
    }
  }
}
