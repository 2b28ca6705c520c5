package io.fffs.common.security;

import io.fffs.common.proto.DataTransferProtos.BlockTokenProto;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.Mac;
import org.apache.hadoop.thirdparty.protobuf.ByteString;

/**
 * A block access token: the NameNode's signed statement that {@code user} may {@code mode} block {@code blockId}
 * until {@code expiryMillis} (NameNode clock). The DataNode recomputes the MAC with the key {@code keyId} and
 * serves nothing without a valid one. It travels as {@code BlockTokenProto}.
 *
 * <p>The MAC is HMAC-SHA256 over these bytes (big-endian), so that no two different tokens sign the same bytes:
 * <pre>
 *   0        4       5          13     14         22       26            34        36
 *   +--------+-------+----------+------+----------+--------+-------------+---------+----------------------+
 *   | "FFBT" | ver 2 | blockId  | mode | expiry   | keyId  | writerEpoch | userLen | user (userLen bytes, |
 *   |        |       | (u64)    | (u8) | ms (u64) | (u32)  | (u64)       | (u16)   | UTF-8)               |
 *   +--------+-------+----------+------+----------+--------+-------------+---------+----------------------+
 * </pre>
 * {@code mode} is the {@code BlockAccessModeProto} number (1 read, 2 write). {@code writerEpoch} is the file's
 * writer epoch for a WRITE token (0 for READ): a DataNode refuses writes under an epoch lower than the highest it
 * was told of for the block ({@link WriterFences}).
 */
public final class BlockToken {
  private static final byte[] MAGIC = {'F', 'F', 'B', 'T'};
  private static final byte VERSION = 2;

  private final long blockId;
  private final BlockAccessMode mode;
  private final String user;
  private final long expiryMillis;
  private final int keyId;
  private final long writerEpoch;
  private final byte[] mac;

  private BlockToken(long blockId, BlockAccessMode mode, String user, long expiryMillis, int keyId,
      long writerEpoch, byte[] mac) {
    this.writerEpoch = writerEpoch;
    this.blockId = blockId;
    this.mode = Objects.requireNonNull(mode);
    this.user = Objects.requireNonNull(user);
    this.expiryMillis = expiryMillis;
    this.keyId = keyId;
    this.mac = mac;
  }

  /** A token of writer epoch 0 signed with {@code key}. */
  public static BlockToken sign(BlockKey key, long blockId, BlockAccessMode mode, String user, long expiryMillis) {
    return sign(key, blockId, mode, user, expiryMillis, 0);
  }

  /** A token signed with {@code key}. */
  public static BlockToken sign(BlockKey key, long blockId, BlockAccessMode mode, String user, long expiryMillis,
      long writerEpoch) {
    byte[] mac = key.newMac().doFinal(signedBytes(blockId, mode, user, expiryMillis, key.keyId(), writerEpoch));
    return new BlockToken(blockId, mode, user, expiryMillis, key.keyId(), writerEpoch, mac);
  }

  /** True if {@code mac} is this token's MAC under {@code key} (constant-time comparison). */
  boolean signedBy(Mac keyMac) {
    byte[] expected = keyMac.doFinal(signedBytes(blockId, mode, user, expiryMillis, keyId, writerEpoch));
    return MessageDigest.isEqual(expected, mac);
  }

  static byte[] signedBytes(long blockId, BlockAccessMode mode, String user, long expiryMillis, int keyId,
      long writerEpoch) {
    byte[] name = user.getBytes(StandardCharsets.UTF_8);
    if (name.length > 0xffff) {
      throw new IllegalArgumentException("a user name of " + name.length + " bytes cannot be in a block token");
    }
    return ByteBuffer.allocate(36 + name.length).put(MAGIC).put(VERSION).putLong(blockId)
        .put((byte) mode.toProto().getNumber()).putLong(expiryMillis).putInt(keyId).putLong(writerEpoch)
        .putShort((short) name.length).put(name).array();
  }

  public long blockId() {
    return blockId;
  }

  public BlockAccessMode mode() {
    return mode;
  }

  public String user() {
    return user;
  }

  public long expiryMillis() {
    return expiryMillis;
  }

  public int keyId() {
    return keyId;
  }

  /** The file's writer epoch this WRITE token was issued under (0 for READ tokens). */
  public long writerEpoch() {
    return writerEpoch;
  }

  /** A copy of this token with another block id, mode, user or expiry but the same MAC: a forgery (tests). */
  public BlockToken tamperedWith(long otherBlockId, BlockAccessMode otherMode, String otherUser, long otherExpiry) {
    return new BlockToken(otherBlockId, otherMode, otherUser, otherExpiry, keyId, writerEpoch, mac);
  }

  /** A copy of this token claiming another writer epoch but with the same MAC: a forgery (tests). */
  public BlockToken withForgedEpoch(long otherEpoch) {
    return new BlockToken(blockId, mode, user, expiryMillis, keyId, otherEpoch, mac);
  }

  public BlockTokenProto toProto() {
    return BlockTokenProto.newBuilder().setBlockId(blockId).setMode(mode.toProto()).setUser(user)
        .setExpiryMillis(expiryMillis).setKeyId(keyId).setWriterEpoch(writerEpoch).setMac(ByteString.copyFrom(mac))
        .build();
  }

  public static BlockToken fromProto(BlockTokenProto proto) {
    return new BlockToken(proto.getBlockId(), BlockAccessMode.fromProto(proto.getMode()), proto.getUser(),
        proto.getExpiryMillis(), proto.getKeyId(), proto.getWriterEpoch(), proto.getMac().toByteArray());
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof BlockToken)) {
      return false;
    }
    BlockToken t = (BlockToken) o;
    return t.blockId == blockId && t.mode == mode && t.user.equals(user) && t.expiryMillis == expiryMillis
        && t.keyId == keyId && t.writerEpoch == writerEpoch && Arrays.equals(t.mac, mac);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(blockId) * 31 + Arrays.hashCode(mac);
  }

  /** Never shows the MAC. */
  @Override
  public String toString() {
    return mode + " token of block " + blockId + " for " + user + " until " + expiryMillis + " (key " + keyId
        + (writerEpoch == 0 ? ")" : ", writer epoch " + writerEpoch + ")");
  }
}
