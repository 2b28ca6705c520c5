package io.fffs.bench.metadata;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The operations measured, identical on both file systems except the past-time lookup, which only FFFS has. All
 * live under one root: {@code create/} and {@code mkdirs/} grow a fresh directory per thread and run, and
 * {@code list/} is the fixed directory of {@link #LISTING_SIZE} empty files that the lookups and listings read.
 */
final class MetadataOps {
  static final int LISTING_SIZE = 1_000;
  /** Spreads the threads over the listing so they do not walk the same files in step. */
  private static final int THREAD_STRIDE = 131;

  private final Path root;
  private final Path listing;
  private final Path[] files;

  MetadataOps(Path root) {
    this.root = root;
    this.listing = new Path(root, "list");
    this.files = new Path[LISTING_SIZE];
    for (int i = 0; i < LISTING_SIZE; i++) {
      files[i] = new Path(listing, String.format("f%04d", i));
    }
  }

  Path listingDir() {
    return listing;
  }

  Path file(int i) {
    return files[i];
  }

  /** Creates the listing directory and its files (not measured; run with {@link ThroughputRunner#forEach}). */
  MetadataOp populate() {
    return (fs, thread, run) -> {
      fs.mkdirs(listing);
      return i -> fs.create(files[(int) i], false).close();
    };
  }

  /** Sets the times of listing file {@code i}, giving it a newer state. */
  MetadataOp touch(long mtime) {
    return (fs, thread, run) -> i -> fs.setTimes(files[(int) i], mtime, mtime);
  }

  /** Create and close an empty file, each thread in a directory of its own. */
  MetadataOp create() {
    return (fs, thread, run) -> {
      Path dir = new Path(root, "create/r" + run + "/t" + thread);
      fs.mkdirs(dir);
      return i -> fs.create(new Path(dir, "f" + i), false).close();
    };
  }

  /** mkdirs of a new directory whose parent exists, each thread under a directory of its own. */
  MetadataOp mkdirs() {
    return (fs, thread, run) -> {
      Path dir = new Path(root, "mkdirs/r" + run + "/t" + thread);
      fs.mkdirs(dir);
      return i -> {
        if (!fs.mkdirs(new Path(dir, "d" + i))) {
          throw new IOException("mkdirs returned false");
        }
      };
    };
  }

  /** getFileStatus of the newest state, cycling over the listing's files. */
  MetadataOp statLatest() {
    return (fs, thread, run) -> i -> fs.getFileStatus(files[index(thread, i)]);
  }

  /** getFileStatus as of {@code time}, cycling over the listing's files (FFFS only). */
  MetadataOp statPast(TimeSpec time) {
    return (fs, thread, run) -> {
      FreezeFrameFileSystem fffs = (FreezeFrameFileSystem) fs;
      return i -> fffs.getFileStatus(files[index(thread, i)], time);
    };
  }

  /** listStatus of the 1,000-entry directory. */
  MetadataOp list() {
    return (fs, thread, run) -> i -> {
      FileStatus[] entries = fs.listStatus(listing);
      if (entries.length != LISTING_SIZE) {
        throw new IOException("listing has " + entries.length + " entries, expected " + LISTING_SIZE);
      }
    };
  }

  private static int index(int thread, long i) {
    return (int) ((i + (long) thread * THREAD_STRIDE) % LISTING_SIZE);
  }
}
