package io.fffs.common.security;

import io.fffs.common.proto.DatanodeProtocolProtos.BlockKeyProto;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.hadoop.thirdparty.protobuf.ByteString;

/**
 * A NameNode secret that signs block access tokens: an id and 256 random bits. No token signed with it is valid
 * after {@code expiryMillis} (NameNode clock): the time the key stops signing plus the token lifetime.
 */
public final class BlockKey {
  static final String ALGORITHM = "HmacSHA256";
  public static final int SECRET_BYTES = 32;

  private final int keyId;
  private final byte[] secret;
  private final long expiryMillis;

  public BlockKey(int keyId, byte[] secret, long expiryMillis) {
    if (secret.length != SECRET_BYTES) {
      throw new IllegalArgumentException("a block key has " + SECRET_BYTES + " bytes, not " + secret.length);
    }
    this.keyId = keyId;
    this.secret = secret.clone();
    this.expiryMillis = expiryMillis;
  }

  public int keyId() {
    return keyId;
  }

  public long expiryMillis() {
    return expiryMillis;
  }

  /** A new HMAC-SHA256 bound to this key (a {@link Mac} is not thread-safe: one per use or per thread). */
  Mac newMac() {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(new SecretKeySpec(secret, ALGORITHM));
      return mac;
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("the JVM has no usable " + ALGORITHM, e);
    }
  }

  public BlockKeyProto toProto() {
    return BlockKeyProto.newBuilder().setKeyId(keyId).setSecret(ByteString.copyFrom(secret))
        .setExpiryMillis(expiryMillis).build();
  }

  public static BlockKey fromProto(BlockKeyProto proto) {
    return new BlockKey(proto.getKeyId(), proto.getSecret().toByteArray(), proto.getExpiryMillis());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BlockKey && ((BlockKey) o).keyId == keyId && ((BlockKey) o).expiryMillis == expiryMillis
        && Arrays.equals(((BlockKey) o).secret, secret);
  }

  @Override
  public int hashCode() {
    return keyId;
  }

  /** Never shows the secret. */
  @Override
  public String toString() {
    return "key " + keyId;
  }
}
