package io.fffs.datanode.server;

import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.security.BlockTokenVerifier;
import io.fffs.protocol.frame.ChunkChecksums;
import io.fffs.protocol.frame.Frame;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first thread of the data server's paths, on the connection's event loop: dispatches each decoded request. A
 * WRITE's payload is checked against its chunk CRCs here and the write goes to the {@link StoreWriter}'s ring — a
 * refused one too, so that its error answer keeps its place among the acks. Queries go to the
 * {@link QueryService}. Before either, the request's block access token is checked ({@link BlockAccess}): a
 * refused query is answered at once, a refused WRITE goes to the ring with its refusal. A connection that fails is closed; other connections are not affected.
 */
final class RequestHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(RequestHandler.class);

  private final StoreWriter writer;
  private final QueryService queries;
  private final DataServerStats stats;
  private final BlockTokenVerifier blockKeys;
  private ConnectionState connection;

  RequestHandler(StoreWriter writer, QueryService queries, DataServerStats stats, BlockTokenVerifier blockKeys) {
    this.blockKeys = blockKeys;
    this.writer = writer;
    this.queries = queries;
    this.stats = stats;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    connection = new ConnectionState(ctx.channel(), writer, stats);
    stats.connections.increment();
    super.channelActive(ctx);
  }

  @Override
  @SuppressWarnings("unchecked")
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    Frame<RequestHeaderProto> frame = (Frame<RequestHeaderProto>) msg;
    RequestHeaderProto request = frame.header();
    FffsException denied = accessDenied(request);
    switch (request.getOp()) {
      case WRITE:
        // The payload stays the slice of the socket reads it arrived in, in one piece or several (PayloadWrite).
        ByteBuf payload = frame.payload();
        int[] crcs = denied == null && request.hasWrite() ? ChunkChecksums.of(payload.nioBuffers()) : null;
        FffsException refusal = denied != null ? denied : request.hasWrite()
            ? WriteRules.verifyPayload(request.getWrite(), crcs, payload.readableBytes(),
                String.valueOf(ctx.channel().remoteAddress()))
            : WriteRules.malformed(false);
        connection.submit(new WriteTask(connection, request.getCallId(), request.getHlc(), request.getWrite(),
            payload, refusal == null ? crcs : null, refusal, request.getTokensList()));
        break;
      default:
        frame.release();
        if (denied != null) {
          queries.refuse(ctx.channel(), request, denied);
        } else {
          queries.submit(ctx.channel(), request);
        }
    }
  }

  /** Null if the request carries a valid token for each block it names; else the refusal. */
  private FffsException accessDenied(RequestHeaderProto request) {
    try {
      BlockAccess.check(blockKeys, request);
      return null;
    } catch (FffsException e) {
      stats.accessDenied.increment();
      return e;
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (connection != null) {
      connection.closed();
    }
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.warn("Closing the data-transfer connection with {}: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
