package io.fffs.datanode.server;

import io.fffs.common.error.FffsException;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.BlockTokenProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import io.netty.buffer.ByteBuf;
import java.util.List;

/**
 * One decoded WRITE on its way from an event loop to the store writer: the request, its payload (a slice of the
 * receive buffer, released by the writer), the payload's CRC32C per 512-byte chunk as computed and checked on
 * arrival (null if refused) and, when the event loop already refused it (bad CRC, malformed), the error to answer
 * with in its turn, so acks keep request order; and the request's block tokens, which a chained write carries on
 * to the next member.
 */
record WriteTask(ConnectionState connection, long callId, HlcProto hlc, WriteRequestProto request, ByteBuf payload,
    int[] chunkCrcs, FffsException refusal, List<BlockTokenProto> tokens) {
  /** Whether the write is to be forwarded to the next member of a chain pipeline once applied. */
  boolean chained() {
    return request.getDownstreamCount() > 0;
  }
}
