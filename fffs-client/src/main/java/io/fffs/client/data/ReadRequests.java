package io.fffs.client.data;

import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.ReadRequestProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;

/** The READ request header every transport sends (its callId is set when it is sent). */
public final class ReadRequests {
  private ReadRequests() {}

  /** {@code length} bytes of {@code blockId} from {@code offset} as of {@code time}, showing {@code token}. */
  public static RequestHeaderProto.Builder of(BlockToken token, long blockId, long offset, int length, TimeSpec time,
      HlcTimestamp clientHlc) {
    RequestHeaderProto.Builder request = NettyDataTransferClient.withToken(token, RequestHeaderProto.newBuilder());
    return request.setOp(OpProto.READ).setHlc(clientHlc.toProto()).setRead(ReadRequestProto.newBuilder()
        .setBlockId(blockId).setOffset(offset).setLength(length).setTime(time.toProto()));
  }
}
