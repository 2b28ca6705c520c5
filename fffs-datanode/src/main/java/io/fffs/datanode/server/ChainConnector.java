package io.fffs.datanode.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.ChainMemberProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.protocol.frame.Frame;
import io.fffs.protocol.frame.FrameDecoder;
import io.fffs.protocol.netty.EventLoops;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/**
 * Makes a chain pipeline's links from this DataNode to the next member: a data-transfer connection over the same
 * frames ({@code fffs-protocol}) and data port as a client's, on the data server's event loops. Connecting never
 * blocks the caller (the store writer thread): the link takes writes at once and sends them when the connection is
 * up. A member deeper in the chain times out sooner ({@code timeout × n / (n + 1)} with n members after it, the
 * timeout being the one the client sent, {@code chainTimeoutMs}, at most this DataNode's response timeout), so that
 * when one stalls or cannot be reached, the member just before it reports it rather than one further up, and before
 * the client gives up on the primary.
 */
final class ChainConnector {
  private final Bootstrap bootstrap;
  private final long connectTimeoutMillis;
  private final long responseTimeoutMillis;

  ChainConnector(Configuration conf, EventLoopGroup group) {
    int maxFrame = DataTransferConfigKeys.maxFrameSize(conf);
    this.connectTimeoutMillis = DataTransferConfigKeys.connectTimeoutMillis(conf);
    this.responseTimeoutMillis = DataTransferConfigKeys.responseTimeoutMillis(conf);
    this.bootstrap = new Bootstrap().group(group).channel(EventLoops.socketChannel())
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(new FrameDecoder<>(ResponseHeaderProto.parser(), maxFrame,
                DataTransferConfigKeys.MAX_FRAME_SIZE_KEY), new Answers());
          }
        });
  }

  /**
   * The link of write stream {@code streamId}, whose answers go to {@code upstream}, to the first of
   * {@code request}'s downstream members; returns at once, the connection still being made. A link that cannot
   * connect within its timeout (or the connect timeout, if shorter) breaks.
   */
  ChainLink link(long streamId, Channel upstream, WriteRequestProto request) {
    List<ChainMemberProto> downstream = request.getDownstreamList();
    ChainMemberProto next = downstream.get(0);
    String address = next.getHost() + ":" + next.getDataPort();
    long timeoutNanos = timeoutNanos(request, responseTimeoutMillis);
    int connectMillis = (int) Math.max(1, Math.min(connectTimeoutMillis, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
    ChannelFuture connect = bootstrap.clone().option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectMillis)
        .connect(next.getHost(), next.getDataPort());
    ChainLink link = new ChainLink(streamId, upstream, connect.channel(), address, timeoutNanos);
    connect.addListener((ChannelFuture done) -> {
      if (done.isSuccess()) {
        // Before the channel reads anything: its answers go to this link.
        done.channel().pipeline().get(Answers.class).link = link;
        link.connected();
      } else {
        Throwable cause = done.cause();
        link.broke(new FffsException(ErrorCode.IO_ERROR, "cannot connect to the next DataNode of the chain, "
            + address + ": " + (cause == null ? "cancelled" : cause.getMessage())));
      }
    });
    return link;
  }

  /**
   * How long this member waits for the next one: the client's chain timeout, never more than this DataNode's own
   * response timeout (a request cannot make it wait for ever), shortened by the members after it.
   */
  static long timeoutNanos(WriteRequestProto request, long responseTimeoutMillis) {
    long asked = request.hasChainTimeoutMs() ? Integer.toUnsignedLong(request.getChainTimeoutMs())
        : responseTimeoutMillis;
    long chainMillis = Math.max(1, Math.min(asked, responseTimeoutMillis));
    int after = request.getDownstreamCount();
    return TimeUnit.MILLISECONDS.toNanos(chainMillis) * after / (after + 1);
  }

  /** Hands the next member's answers to the link, in the order they arrive. */
  private static final class Answers extends ChannelInboundHandlerAdapter {
    private volatile ChainLink link;

    @Override
    @SuppressWarnings("unchecked")
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Frame<ResponseHeaderProto> frame = (Frame<ResponseHeaderProto>) msg;
      frame.release();
      ChainLink to = link;
      if (to != null) {
        to.answered(frame.header());
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ChainLink to = link;
      if (to != null) {
        to.broke(new FffsException(ErrorCode.IO_ERROR, "the link to the next DataNode of the chain failed: "
            + cause.getMessage()));
      }
      ctx.close();
    }
  }
}
