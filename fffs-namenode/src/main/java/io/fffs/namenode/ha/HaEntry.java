package io.fffs.namenode.ha;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.time.HlcTimestamp;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * One namespace op as it travels in the Raft log: the leader's txid and HLC stamp travel with the op, so every
 * NameNode applies it at the same place in the same history.
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
 *
 * <p>A Raft entry holds either one op in this layout (version 1) or a batch of consecutive ops (version 2):
 * {@code 0x02, count (int32)}, then per op {@code length (int32)} and the op in version 1. A leader packs the ops
 * stamped while its previous entry was being appended into one entry, so Raft's cost per entry is shared by them.
 * The op's bytes are parsed only when {@link #op()} is asked: a leader skips its own ops without parsing them.
 */
record HaEntry(long txid, HlcTimestamp hlc, byte[] clientId, int callId, ByteBuffer opBytes) {
  private static final byte VERSION = 1;
  private static final byte BATCH = 2;
  private static final int HEADER = 22;

  static HaEntry of(long txid, HlcTimestamp hlc, byte[] clientId, int callId, EditOpProto op) {
    return new HaEntry(txid, hlc, clientId, callId, ByteBuffer.wrap(op.toByteArray()));
  }

  /** This op alone, in version 1. */
  byte[] encodeOne() {
    ByteBuffer op = opBytes.duplicate();
    ByteBuffer buffer = ByteBuffer.allocate(HEADER + clientId.length + op.remaining());
    buffer.put(VERSION).putLong(txid).putLong(hlc.packed()).putInt(callId).put((byte) clientId.length)
        .put(clientId).put(op);
    return buffer.array();
  }

  /** One Raft entry of ops already encoded by {@link #encodeOne()}, in txid order. */
  static ByteString encodeBatch(List<byte[]> ops) {
    if (ops.size() == 1) {
      return UnsafeByteOperations.unsafeWrap(ops.get(0));
    }
    int size = 5;
    for (byte[] op : ops) {
      size += 4 + op.length;
    }
    ByteBuffer buffer = ByteBuffer.allocate(size);
    buffer.put(BATCH).putInt(ops.size());
    for (byte[] op : ops) {
      buffer.putInt(op.length).put(op);
    }
    return UnsafeByteOperations.unsafeWrap(buffer.array());
  }

  /** The parsed op. */
  EditOpProto op() throws FffsException {
    try {
      return EditOpProto.parseFrom(opBytes.duplicate());
    } catch (org.apache.hadoop.thirdparty.protobuf.InvalidProtocolBufferException e) {
      throw new FffsException(ErrorCode.CORRUPT, "the op of Raft log entry txid " + txid + " is damaged: "
          + e.getMessage(), e);
    }
  }

  /** The ops of one Raft entry, in txid order (one for a version 1 entry). */
  static List<HaEntry> decodeAll(ByteString data) throws FffsException {
    ByteBuffer buffer = data.asReadOnlyByteBuffer();
    if (buffer.remaining() > 5 && buffer.get(buffer.position()) == BATCH) {
      buffer.get();
      int count = buffer.getInt();
      if (count < 1 || count > buffer.remaining() / (4 + HEADER)) {
        throw new FffsException(ErrorCode.CORRUPT, "a Raft log entry of " + data.size() + " bytes claims " + count
            + " ops");
      }
      List<HaEntry> ops = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        int length = buffer.remaining() >= 4 ? buffer.getInt() : -1;
        if (length < HEADER || length > buffer.remaining()) {
          throw new FffsException(ErrorCode.CORRUPT, "op " + i + " of a Raft log entry of " + count
              + " ops is cut short");
        }
        ByteBuffer one = buffer.slice();
        one.limit(length);
        buffer.position(buffer.position() + length);
        ops.add(decodeOne(one, data.size()));
      }
      return ops;
    }
    return List.of(decodeOne(buffer, data.size()));
  }

  private static HaEntry decodeOne(ByteBuffer buffer, int entrySize) throws FffsException {
    if (buffer.remaining() < HEADER || buffer.get() != VERSION) {
      throw new FffsException(ErrorCode.CORRUPT, "a Raft log entry of " + entrySize
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
    return new HaEntry(txid, hlc, clientId, callId, buffer.slice());
  }
}
