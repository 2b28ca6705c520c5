package io.fffs.minicluster.dataserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write whose applying fails on the store writer thread with something the store does not declare — an
 * {@link Error}, a checked exception thrown past its signature — is answered with {@code INTERNAL} and fails its
 * writer, and the thread goes on: another block's writer, and then a new writer of the same block, write and flush
 * as before. The response timeout is long, so a write left unanswered would show as a timeout, not as the code.
 */
class StoreWriterFailuresTest {
  private static final int PACKET = 8 * 1024;

  @TempDir
  Path dir;

  @Test
  void anErrorOrAnUndeclaredExceptionFailsItsWriterTypedAndTheThreadGoesOn() throws Exception {
    try (SlowStoreServer s = new SlowStoreServer(dir,
        conf -> conf.setLong(DataTransferConfigKeys.RESPONSE_TIMEOUT_KEY, 120_000))) {
      List<Throwable> failures = List.of(new LinkageError("injected"), new IOException("injected"));
      for (int i = 0; i < failures.size(); i++) {
        Throwable failure = failures.get(i);
        long block = 700 + 10L * i;
        try (BlockWriter writer = s.client.openWriter(s.dn, block, new WriteOptions(1 << 20, null))) {
          writer.write(0, ByteBuffer.wrap(new byte[PACKET]));
          assertThat(writer.flush()).isEqualTo(PACKET);
          s.store.failNextWrite(block, failure);
          writer.write(PACKET, ByteBuffer.wrap(new byte[PACKET]));
          assertThatThrownBy(writer::flush).as("the write that met %s", failure)
              .isInstanceOfSatisfying(FffsException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL);
                assertThat(e.getMessage()).contains("block " + block, "injected");
              });
          assertThat(writer.acknowledgedBytes()).as("the failed write not counted").isEqualTo(PACKET);
        }
        try (BlockWriter other = s.client.openWriter(s.dn, block + 1, new WriteOptions(1 << 20, null))) {
          other.write(0, ByteBuffer.wrap(new byte[PACKET]));
          assertThat(other.flush()).as("another block after %s", failure).isEqualTo(PACKET);
        }
        try (BlockWriter again = s.client.openWriter(s.dn, block, new WriteOptions(1 << 20, null))) {
          again.write(PACKET, ByteBuffer.wrap(new byte[PACKET]));
          assertThat(again.flush()).as("the same block, nothing of the failed write in it, through a new writer")
              .isEqualTo(2 * PACKET);
        }
      }
    }
  }
}
