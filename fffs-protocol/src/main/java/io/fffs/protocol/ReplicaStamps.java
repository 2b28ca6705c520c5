package io.fffs.protocol;

import io.fffs.common.proto.DataTransferProtos.ReplicaStampProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.proto.DataTransferProtos.WriteResponseProto;

/** The stamps a follower applies an entry at, taken from the primary's answer to it, for every pipeline. */
public final class ReplicaStamps {
  private ReplicaStamps() {}

  /**
   * The entry's HLCs, user time and resulting length from the primary's answer to it, and the answer's HLC as the
   * frontier: every later entry of the block is stamped above it.
   */
  public static ReplicaStampProto of(ResponseHeaderProto answer) {
    WriteResponseProto write = answer.getWrite();
    ReplicaStampProto.Builder stamp = ReplicaStampProto.newBuilder().setEntryHlc(write.getEntryHlc())
        .setLengthAfter(write.getBlockLength()).setUserTime(write.getUserTime()).setFrontierHlc(answer.getHlc());
    if (write.hasCreateHlc()) {
      stamp.setCreateHlc(write.getCreateHlc());
    }
    return stamp.build();
  }
}
