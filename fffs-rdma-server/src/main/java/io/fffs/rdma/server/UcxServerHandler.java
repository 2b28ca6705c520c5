package io.fffs.rdma.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.security.BlockTokenVerifier;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.datanode.server.BlockAccess;
import io.fffs.datanode.server.Responses;
import io.fffs.datanode.server.WriteRules;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.protocol.frame.Frame;
import io.fffs.protocol.frame.FrameDecoder;
import io.fffs.rdma.SideChannelFormat.Descriptor;
import io.fffs.rdma.SideChannelFormat;
import io.fffs.rdma.UcxWorkerLoop;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.ByteBuffer;
import java.util.List;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A side channel on the DataNode ({@link SideChannelFormat}): reads the client's hello, creates the UCX endpoint
 * to the client's worker on the worker loop and answers — accepted, or refused with the reason — then decodes
 * request frames and dispatches WRITEs to the {@link UcxWriteApplier} and READs to the {@link UcxReadService}.
 * Other operations go over the TCP data port and are refused here. Every request's block access token is checked
 * first ({@link BlockAccess}): a refused WRITE still goes to the applier so its error keeps its place among the acks. A malformed hello closes the connection.
 */
final class UcxServerHandler extends ByteToMessageDecoder {
  private static final Logger LOG = LoggerFactory.getLogger(UcxServerHandler.class);

  private final UcxWorkerLoop loop;
  private final UcxWriteApplier writes;
  private final UcxReadService reads;
  private final HybridLogicalClock clock;
  private final int maxFrame;
  private final BlockTokenVerifier blockKeys;
  private boolean helloSeen;

  UcxServerHandler(UcxWorkerLoop loop, UcxWriteApplier writes, UcxReadService reads, HybridLogicalClock clock,
      int maxFrame, BlockTokenVerifier blockKeys) {
    this.blockKeys = blockKeys;
    this.loop = loop;
    this.writes = writes;
    this.reads = reads;
    this.clock = clock;
    this.maxFrame = maxFrame;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (helloSeen || in.readableBytes() < 10) {
      return;
    }
    int start = in.readerIndex();
    int magic = in.getInt(start);
    short version = in.getShort(start + 4);
    long length = in.getUnsignedInt(start + 6);
    if (magic != SideChannelFormat.MAGIC || version != SideChannelFormat.VERSION
        || length > SideChannelFormat.MAX_ADDRESS_BYTES) {
      LOG.warn("Closing the UCX side channel with {}: not a client hello (magic {}, version {}, length {})",
          ctx.channel().remoteAddress(), Integer.toHexString(magic), version, length);
      in.skipBytes(in.readableBytes());
      ctx.close();
      return;
    }
    if (in.readableBytes() < 10 + length) {
      return;
    }
    helloSeen = true;
    ByteBuffer address = ByteBuffer.allocateDirect((int) length);
    in.getBytes(start + 10, address);
    address.flip();
    in.skipBytes(10 + (int) length);
    connect(ctx, address);
  }

  private void connect(ChannelHandlerContext ctx, ByteBuffer clientAddress) {
    UcxPeer[] peer = new UcxPeer[1];
    loop.call(() -> {
      UcpEndpoint endpoint = loop.worker().newEndpoint(new UcpEndpointParams().setUcpAddress(clientAddress)
          .setPeerErrorHandlingMode().setName("fffs-dn-" + ctx.channel().remoteAddress())
          .setErrorHandler((ep, status, message) -> {
            if (peer[0] != null) {
              peer[0].broken("the UCX endpoint failed: " + message + " (status " + status + ")");
            }
          }));
      peer[0] = new UcxPeer(ctx.channel(), endpoint);
      return peer[0];
    }).whenComplete((created, error) -> ctx.executor().execute(() -> {
      if (error != null) {
        String why = "cannot create a UCX endpoint to the client: " + error;
        LOG.info("UCX side channel with {} refused: {}", ctx.channel().remoteAddress(), why);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(SideChannelFormat.serverHello(SideChannelFormat.REFUSED, why)))
            .addListener(done -> ctx.close());
        return;
      }
      ctx.channel().closeFuture().addListener(closed -> {
        try {
          loop.execute(created::release);
        } catch (IllegalStateException stopped) {
          // the worker is gone and took the endpoint with it
        }
      });
      ctx.writeAndFlush(Unpooled.wrappedBuffer(SideChannelFormat.serverHello(SideChannelFormat.ACCEPTED, "ucx")));
      ctx.pipeline().addLast(new FrameDecoder<>(RequestHeaderProto.parser(), maxFrame,
          DataTransferConfigKeys.MAX_FRAME_SIZE_KEY), new Requests(created));
      ctx.pipeline().remove(this);
    }));
  }

  /** The frames after the hello. */
  private final class Requests extends ChannelInboundHandlerAdapter {
    private final UcxPeer peer;

    Requests(UcxPeer peer) {
      this.peer = peer;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Frame<RequestHeaderProto> frame = (Frame<RequestHeaderProto>) msg;
      RequestHeaderProto request = frame.header();
      Descriptor where = null;
      FffsException refusal = null;
      try {
        where = Descriptor.decode(frame.payload().nioBuffer());
      } catch (FffsException e) {
        refusal = e;
      } finally {
        frame.release();
      }
      if (refusal == null) {
        try {
          BlockAccess.check(blockKeys, request);  // before any GET from or PUT into the client's memory
        } catch (FffsException e) {
          refusal = e;
        }
      }
      switch (request.getOp()) {
        case WRITE:
          if (refusal == null) {
            refusal = WriteRules.malformed(request.hasWrite());
          }
          writes.submit(new UcxWriteApplier.Job(peer, request.getCallId(), request.getHlc(), request.getWrite(),
              where, refusal));
          break;
        case READ:
          if (refusal == null) {
            reads.submit(peer, request, where);
            break;
          }
          refuse(ctx, request, refusal);
          break;
        default:
          refuse(ctx, request, new FffsException(ErrorCode.INVALID_ARGUMENT, request.getOp()
              + " is not carried by the UCX side channel; send it to the TCP data port"));
      }
    }

    private void refuse(ChannelHandlerContext ctx, RequestHeaderProto request, FffsException failure) {
      Responses.send(ctx.channel(), ResponseHeaderProto.newBuilder().setCallId(request.getCallId())
          .setError(failure.toProto()).setHlc(clock.now().toProto()).build(), true);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.warn("Closing the UCX side channel with {}: {}", ctx.channel().remoteAddress(), cause.toString());
      ctx.close();
    }
  }
}
