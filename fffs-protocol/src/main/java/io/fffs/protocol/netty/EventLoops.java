package io.fffs.protocol.netty;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Netty's native epoll transport where it loads ({@link Epoll#isAvailable()}), NIO otherwise; and the one event
 * loop group that all data-transfer clients of a JVM share (daemon threads, created on first use and shut down when
 * its last user releases it).
 */
public final class EventLoops {
  private static final Logger LOG = LoggerFactory.getLogger(EventLoops.class);
  private static final boolean EPOLL = Epoll.isAvailable();
  private static EventLoopGroup shared;
  private static int sharedUsers;

  private EventLoops() {}

  public static boolean epoll() {
    return EPOLL;
  }

  /** A new group of {@code threads} event loops (0: Netty's default) named {@code name}. */
  public static EventLoopGroup newGroup(int threads, String name, boolean daemon) {
    DefaultThreadFactory factory = new DefaultThreadFactory(name, daemon);
    return EPOLL ? new EpollEventLoopGroup(threads, factory) : new NioEventLoopGroup(threads, factory);
  }

  public static Class<? extends SocketChannel> socketChannel() {
    return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  public static Class<? extends ServerChannel> serverChannel() {
    return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  /** The shared client group; every call must be paired with {@link #releaseShared()}. */
  public static synchronized EventLoopGroup acquireShared() {
    if (shared == null) {
      shared = newGroup(0, "fffs-data-client", true);
      LOG.debug("Data-transfer client event loops started ({})", EPOLL ? "epoll" : "nio");
    }
    sharedUsers++;
    return shared;
  }

  public static synchronized void releaseShared() {
    if (--sharedUsers == 0) {
      shared.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      shared = null;
    }
  }
}
