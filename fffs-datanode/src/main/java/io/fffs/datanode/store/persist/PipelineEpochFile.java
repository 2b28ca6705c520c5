package io.fffs.datanode.store.persist;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The highest write-pipeline epoch each block was opened with on this DataNode ({@code pipeline-epochs} in the data
 * directory), so that a restarted DataNode still refuses the writer of a superseded pipeline. An append-only file of
 * 20-byte records, each synced before the open it records is answered:
 * <pre>
 *   0: blockId  (int64, big-endian)
 *   8: epoch    (int64, the pipeline's HLC epoch)
 *  16: CRC32C of bytes 0-15 (int32)
 * </pre>
 * A torn or damaged tail record is ignored (its open was never answered). At start-up the file is read, the
 * highest epoch per block taken, and the file rewritten with the blocks the DataNode still holds (written to a
 * temporary file, synced, renamed over the old one).
 */
public final class PipelineEpochFile implements AutoCloseable {
  public static final String NAME = "pipeline-epochs";
  private static final int RECORD = 20;

  private final Path file;
  private final FileChannel channel;
  private final ByteBuffer record = ByteBuffer.allocate(RECORD);

  private PipelineEpochFile(Path file, FileChannel channel) {
    this.file = file;
    this.channel = channel;
  }

  /** The highest epoch per block recorded in {@code dataDir} (none when there is no file). */
  public static Map<Long, Long> read(Path dataDir) throws FffsException {
    Path file = dataDir.resolve(NAME);
    Map<Long, Long> epochs = new HashMap<>();
    if (!Files.exists(file)) {
      return epochs;
    }
    try {
      ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(file));
      CRC32C crc = new CRC32C();
      while (all.remaining() >= RECORD) {
        long blockId = all.getLong(all.position());
        long epoch = all.getLong(all.position() + 8);
        crc.reset();
        crc.update(all.array(), all.position(), 16);
        if ((int) crc.getValue() != all.getInt(all.position() + 16)) {
          break;  // a torn write: nothing after it was answered either
        }
        epochs.merge(blockId, epoch, (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b);
        all.position(all.position() + RECORD);
      }
    } catch (IOException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "cannot read the pipeline epochs " + file + ": " + e.getMessage(),
          e);
    }
    return epochs;
  }

  /** Rewrites the file in {@code dataDir} with {@code epochs} and opens it for appends. */
  public static PipelineEpochFile rewrite(Path dataDir, Map<Long, Long> epochs) throws FffsException {
    Path file = dataDir.resolve(NAME);
    Path temporary = dataDir.resolve(NAME + ".tmp");
    try {
      try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buffer = ByteBuffer.allocate(RECORD);
        for (Map.Entry<Long, Long> entry : epochs.entrySet()) {
          encode(buffer, entry.getKey(), entry.getValue());
          while (buffer.hasRemaining()) {
            out.write(buffer);
          }
        }
        out.force(true);
      }
      Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      try (FileChannel directory = FileChannel.open(dataDir, StandardOpenOption.READ)) {
        directory.force(true);
      }
      return new PipelineEpochFile(file, FileChannel.open(file, StandardOpenOption.WRITE,
          StandardOpenOption.APPEND));
    } catch (IOException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "cannot write the pipeline epochs " + file + ": "
          + e.getMessage(), e);
    }
  }

  /** Records that {@code blockId} was opened with {@code epoch}; durable when this returns. */
  public synchronized void record(long blockId, long epoch) throws FffsException {
    try {
      encode(record, blockId, epoch);
      while (record.hasRemaining()) {
        channel.write(record);
      }
      channel.force(false);
    } catch (IOException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "cannot record the pipeline epoch of block " + blockId + " in "
          + file + ": " + e.getMessage(), e);
    }
  }

  private static void encode(ByteBuffer buffer, long blockId, long epoch) {
    buffer.clear();
    buffer.putLong(blockId).putLong(epoch);
    CRC32C crc = new CRC32C();
    crc.update(buffer.array(), 0, 16);
    buffer.putInt((int) crc.getValue()).flip();
  }

  @Override
  public synchronized void close() throws IOException {
    channel.close();
  }
}
