package io.fffs.bench.jmh;

import com.sun.nio.file.ExtendedOpenOption;
import io.fffs.datanode.store.DataNodeConfigKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The least any persistence can cost a writer on this machine: a thread that does nothing but write {@code source}
 * to a file as fast as the disk takes it, in {@value #BATCH_BYTES}-byte writes (FFFS's default batch), each
 * followed by an fdatasync, with O_DIRECT or through the page cache. No queue, no checksums, no records, no
 * bookkeeping. {@link StorePersistenceOnOffBenchmark} runs it beside an append to a store with persistence off: what
 * that append loses against the same append alone is the share of the machine that disk writes at full speed take
 * from a writer, before FFFS adds any code of its own.
 *
 * <p>{@code source} is the store's own page arena (mapped read-only), so the disk reads the same memory the writer
 * fills, as FFFS's persistence does. It is written from start to end, over and over, until {@link #close()}.
 */
final class BareDiskWriter implements AutoCloseable {
  static final int BATCH_BYTES = (int) DataNodeConfigKeys.PERSISTENCE_BATCH_BYTES_DEFAULT;

  private final FileChannel channel;
  private final Path file;
  private final ByteBuffer source;
  private final Thread thread;
  private volatile boolean stop;
  private volatile IOException failure;
  private long bytesWritten;

  /**
   * Starts writing {@code source} (its address and length multiples of 4096, at least one batch) to a new file in
   * {@code dir}.
   */
  BareDiskWriter(Path dir, ByteBuffer source, boolean direct) throws IOException {
    if (source.remaining() < BATCH_BYTES) {
      throw new IllegalArgumentException("the source must hold one batch of " + BATCH_BYTES + " bytes");
    }
    this.file = dir.resolve("bare-disk-writer.dat");
    this.source = source;
    OpenOption[] options = direct
        ? new OpenOption[] {StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT}
        : new OpenOption[] {StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE};
    this.channel = FileChannel.open(file, options);
    this.thread = new Thread(this::run, "bare-disk-writer");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    int batches = source.remaining() / BATCH_BYTES;
    long position = 0;
    try {
      for (long n = 0; !stop; n++) {
        int from = (int) (n % batches) * BATCH_BYTES;
        ByteBuffer batch = source.slice(from, BATCH_BYTES);
        while (batch.hasRemaining()) {
          position += channel.write(batch, position);
        }
        channel.force(false);
      }
    } catch (IOException e) {
      failure = e;
    }
    bytesWritten = position;
  }

  /** Stops after the write in progress, deletes the file and returns how many bytes were written. */
  long stop() throws IOException {
    stop = true;
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while the bare disk writer stopped", e);
    }
    if (failure != null) {
      throw failure;
    }
    return bytesWritten;
  }

  @Override
  public void close() throws IOException {
    try {
      if (thread.isAlive()) {
        stop();
      }
    } finally {
      channel.close();
      Files.deleteIfExists(file);
    }
  }
}
