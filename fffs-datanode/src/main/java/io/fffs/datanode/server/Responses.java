package io.fffs.datanode.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.protocol.frame.FrameFormat;
import io.netty.channel.Channel;

/**
 * Writes response frames without payload on a Netty channel (the TCP data port, the UCX side channel). Each is one
 * Netty message, so frames from several threads never mix.
 */
public final class Responses {
  private Responses() {}

  public static void send(Channel channel, ResponseHeaderProto header, boolean flush) {
    if (flush) {
      channel.writeAndFlush(FrameFormat.prefix(channel.alloc(), header, 0), channel.voidPromise());
    } else {
      channel.write(FrameFormat.prefix(channel.alloc(), header, 0), channel.voidPromise());
    }
  }

  /** The error a failure stands for: an {@link FffsException} as it is, anything else as {@code INTERNAL}. */
  public static FffsException typed(Throwable failure, String doing) {
    if (failure instanceof FffsException) {
      return (FffsException) failure;
    }
    return new FffsException(ErrorCode.INTERNAL, "the DataNode failed " + doing + ": " + failure);
  }
}
