package io.fffs.client.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.ReadResponseProto;
import io.fffs.protocol.frame.ChunkChecksums;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** An answer larger than one checksum-and-copy pass, in pieces of any size, is checked and copied whole and in order. */
class ReadChecksTest {
  private static final int LENGTH = 200_000;

  private static byte[] bytes() {
    byte[] bytes = new byte[LENGTH];
    for (int i = 0; i < LENGTH; i++) {
      bytes[i] = (byte) (i * 13 + i / 777);
    }
    return bytes;
  }

  /** The answer as two direct pieces, the first starting past its buffer's start. */
  private static ByteBuffer[] pieces(byte[] bytes) {
    ByteBuffer first = ByteBuffer.allocateDirect(100 + 70_001);
    first.position(100);
    first.put(bytes, 0, 70_001).position(100);
    ByteBuffer second = ByteBuffer.allocateDirect(LENGTH - 70_001);
    second.put(bytes, 70_001, LENGTH - 70_001).flip();
    return new ByteBuffer[] {first, second};
  }

  private static ReadResponseProto answerFor(byte[] bytes) {
    return ReadResponseProto.newBuilder().setBlockLength(LENGTH)
        .setResolvedHlc(io.fffs.common.proto.CommonProtos.HlcProto.newBuilder().setPacked(1))
        .setChunkCrcs(ChunkChecksums.toWire(ChunkChecksums.of(ByteBuffer.wrap(bytes)))).build();
  }

  @Test
  void everyPassIsCheckedAndCopiedInOrder() throws Exception {
    byte[] bytes = bytes();
    ByteBuffer dst = ByteBuffer.allocate(LENGTH + 10).position(10);
    ReadChecks.verifyInto(pieces(bytes), LENGTH, answerFor(bytes), dst, 5, 0, "test");
    assertThat(dst.position()).isEqualTo(LENGTH + 10);
    assertThat(Arrays.copyOfRange(dst.array(), 10, LENGTH + 10)).isEqualTo(bytes);
  }

  @Test
  void aBadByteInALaterPassIsCorruptAndLeavesTheBufferWhereItWas() {
    byte[] bytes = bytes();
    byte[] damaged = bytes.clone();
    damaged[150_000] ^= 4;
    ByteBuffer dst = ByteBuffer.allocate(LENGTH).position(0);
    assertThatThrownBy(() -> ReadChecks.verifyInto(pieces(damaged), LENGTH, answerFor(bytes), dst, 5, 1 << 20,
        "test")).isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT);
          assertThat(e.detail()).contains("offset " + ((1 << 20) + 150_000 / 512 * 512));
        });
    assertThat(dst.position()).isZero();
  }
}
