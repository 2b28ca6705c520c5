package io.fffs.client.data;

import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.ReadRequestProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;

/** Request headers of the data-transfer protocol as the client builds them (the callId is set when sent). */
final class RequestHeaders {
  private RequestHeaders() {}

  /** {@code length} bytes of {@code blockId} from {@code offset} as of {@code time}, showing {@code token}. */
  static RequestHeaderProto.Builder of(BlockToken token, long blockId, long offset, int length, TimeSpec time,
      HlcTimestamp clientHlc) {
    RequestHeaderProto.Builder request = withToken(token, RequestHeaderProto.newBuilder());
    return request.setOp(OpProto.READ).setHlc(clientHlc.toProto()).setRead(ReadRequestProto.newBuilder()
        .setBlockId(blockId).setOffset(offset).setLength(length).setTime(time.toProto()));
  }

  /** Adds {@code token} (if any) to {@code request}. */
  static RequestHeaderProto.Builder withToken(BlockToken token, RequestHeaderProto.Builder request) {
    return token == null ? request : request.addTokens(token.toProto());
  }
}
