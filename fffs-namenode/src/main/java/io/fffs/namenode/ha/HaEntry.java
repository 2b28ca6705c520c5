package io.fffs.namenode.ha;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.time.HlcTimestamp;
import java.nio.ByteBuffer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * One namespace op as a Raft log entry: the leader's txid and HLC stamp travel with the op, so every NameNode
 * applies it at the same place in the same history.
 *
 * <pre>
 *  0      1              9              17             21       22          22+n
 *  +------+--------------+--------------+--------------+--------+-----------+---------------------------+
 *  | 0x01 | txid (int64) | HLC (int64,  | IPC call id  | n      | IPC       | EditOpProto bytes         |
 *  |      |              |  packed)     | (int32)      | (int8) | client id | (the rest)                |
 *  +------+--------------+--------------+--------------+--------+-----------+---------------------------+
 * </pre>
 * Big-endian. The IPC ids are those of the client call that made the change ({@code n} = 0 for the NameNode's own
 * changes): every NameNode then knows the call was made, and answers its retry rather than making it again. The Raft
 * log frames and checksums the entry; byte 0 is the layout's version.
 */
record HaEntry(long txid, HlcTimestamp hlc, byte[] clientId, int callId, EditOpProto op) {
  private static final byte VERSION = 1;
  private static final int HEADER = 22;

  ByteString encode() {
    byte[] opBytes = op.toByteArray();
    ByteBuffer buffer = ByteBuffer.allocate(HEADER + clientId.length + opBytes.length);
    buffer.put(VERSION).putLong(txid).putLong(hlc.packed()).putInt(callId).put((byte) clientId.length)
        .put(clientId).put(opBytes);
    return UnsafeByteOperations.unsafeWrap(buffer.array());
  }

  static HaEntry decode(ByteString data) throws FffsException {
    ByteBuffer buffer = data.asReadOnlyByteBuffer();
    if (buffer.remaining() < HEADER || buffer.get() != VERSION) {
      throw new FffsException(ErrorCode.CORRUPT, "a Raft log entry of " + data.size()
          + " bytes is not a namespace op of layout version " + VERSION);
    }
    long txid = buffer.getLong();
    HlcTimestamp hlc = HlcTimestamp.valueOf(buffer.getLong());
    int callId = buffer.getInt();
    int idLength = Byte.toUnsignedInt(buffer.get());
    if (buffer.remaining() < idLength) {
      throw new FffsException(ErrorCode.CORRUPT, "Raft log entry txid " + txid + " is cut short");
    }
    byte[] clientId = new byte[idLength];
    buffer.get(clientId);
    try {
      return new HaEntry(txid, hlc, clientId, callId, EditOpProto.parseFrom(buffer));
    } catch (org.apache.hadoop.thirdparty.protobuf.InvalidProtocolBufferException e) {
      throw new FffsException(ErrorCode.CORRUPT, "the op of Raft log entry txid " + txid + " is damaged: "
          + e.getMessage(), e);
    }
  }
}
