package io.fffs.minicluster.dataserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.ReadResult;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

/** Block contents for data-path tests: random bytes, a model of writes at offsets, and a checked read. */
public final class BlockBytes {
  private BlockBytes() {}

  /** {@code model} with {@code data} written at {@code offset} (longer if it ends past it). */
  public static byte[] apply(byte[] model, int offset, byte[] data) {
    byte[] next = Arrays.copyOf(model, Math.max(model.length, offset + data.length));
    System.arraycopy(data, 0, next, offset, data.length);
    return next;
  }

  public static byte[] randomBytes(Random random, int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  /** Up to {@code length} bytes of a block from {@code offset} as of {@code time}, as many as it returned. */
  public static byte[] read(DataTransferClient client, DatanodeIdProto dn, long blockId, long offset, int length,
      TimeSpec time) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length);
    ReadResult result = client.read(dn, blockId, offset, buffer, time);
    assertThat(buffer.position()).isEqualTo(result.bytesRead());
    return Arrays.copyOf(buffer.array(), result.bytesRead());
  }
}
