package io.fffs.datanode.store.persist;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** An exclusive lock on a directory (file {@code in_use.lock} in it), so two DataNodes never share one. */
public final class DirectoryLock implements AutoCloseable {
  private final FileChannel channel;
  private final FileLock lock;

  private DirectoryLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Creates {@code dir} if needed and locks it.
   *
   * @param key the configuration key that names the directory, for the message
   * @throws FffsException {@code IO_ERROR} if it cannot be created or another process holds it
   */
  public static DirectoryLock acquire(Path dir, String key) throws FffsException {
    try {
      Files.createDirectories(dir);
      FileChannel channel = FileChannel.open(dir.resolve("in_use.lock"), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (IOException | RuntimeException e) {
        channel.close();
        throw e;
      }
      if (lock == null) {
        channel.close();
        throw new FffsException(ErrorCode.IO_ERROR, "the directory " + dir + " is in use by another DataNode;"
            + " give this one its own " + key);
      }
      return new DirectoryLock(channel, lock);
    } catch (FffsException e) {
      throw e;
    } catch (java.nio.channels.OverlappingFileLockException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "the directory " + dir + " is already used by a block store in"
          + " this process; give each its own " + key, e);
    } catch (IOException e) {
      throw new FffsException(ErrorCode.IO_ERROR, "cannot use the directory " + dir + ": " + e.getMessage()
          + "; check " + key, e);
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      // The lock dies with the channel anyway.
    }
  }
}
