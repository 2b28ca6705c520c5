package io.fffs.minicluster.crash;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Work in flight during a crash round, on a thread of its own with a client of its own. It records only what the
 * cluster acknowledged; the first call that fails (the kill) ends its round and is kept as {@link #interrupted} with
 * what that call may or may not have done. An {@link AssertionError} (a wrong answer while running) is a bug.
 */
abstract class Worker implements Runnable {
  /** A read at a past time answered before a crash; {@code bytes} null when the path did not exist then. */
  record PastRead(Path path, long micros, byte[] bytes) {}

  /**
   * What the checks after a crash compare a past read with: its length and SHA-256 (both -1 / null when the path
   * did not exist), not its bytes, which on a fast machine would fill the heap over many rounds.
   */
  record KeptRead(Path path, long micros, long length, byte[] sha256) {
    static KeptRead of(Path path, long micros, byte[] bytes) {
      return new KeptRead(path, micros, bytes == null ? -1 : bytes.length, digest(bytes));
    }

    static byte[] digest(byte[] bytes) {
      if (bytes == null) {
        return null;
      }
      try {
        return java.security.MessageDigest.getInstance("SHA-256").digest(bytes);
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new IllegalStateException("every Java runtime has SHA-256", e);
      }
    }
  }

  final Configuration conf;
  /** The worker's choices, from its seed: a round replays from the seed. */
  final Random random;
  final List<KeptRead> pastReads = new ArrayList<>();
  volatile boolean stop;
  /** The call the kill interrupted, if any (expected). */
  volatile Throwable interrupted;
  /** A wrong answer seen while running (a bug). */
  volatile Throwable bug;

  /** Counts the names {@link #fresh} gave, across rounds. */
  private int names;

  Worker(Configuration conf, long seed) {
    this.conf = conf;
    this.random = new Random(seed);
  }

  /**
   * A name in {@code dir} this worker never used: a file an interrupted create left open would refuse a rewrite until
   * its lease is recovered.
   */
  Path fresh(Path dir, String prefix) {
    return new Path(dir, prefix + names++);
  }

  @Override
  public final void run() {
    try (FreezeFrameFileSystem fs = (FreezeFrameFileSystem) FileSystem.newInstance(URI.create(
        conf.get("fs.defaultFS")), conf)) {
      work(fs);
    } catch (IOException e) {
      interrupted = e;  // a call failed: the kill, or the cluster still restarting after it
    } catch (Exception | AssertionError e) {
      bug = e;  // a wrong answer, or the test's own mistake: neither may pass for an interrupted call
    }
  }

  /** Makes the worker runnable for another round (a worker that keeps a model from round to round). */
  void reset() {
    stop = false;
    interrupted = null;
  }

  /** Runs until {@link #stop} or the first failed call (which it records as unacknowledged before rethrowing). */
  abstract void work(FreezeFrameFileSystem fs) throws IOException;

  /**
   * Reads {@code path} as of a moment just after everything acknowledged so far and records the answer; a read the
   * crash interrupts records nothing. Returns the bytes (null: absent), or throws if the read failed.
   */
  PastRead readPast(FreezeFrameFileSystem fs, Path path) throws IOException {
    long at = settle(fs);
    byte[] bytes;
    try (FSDataInputStream in = fs.open(path, TimeSpec.system(at))) {
      bytes = in.readAllBytes();
    } catch (FileNotFoundException e) {
      bytes = null;
    }
    pastReads.add(KeptRead.of(path, at, bytes));
    return new PastRead(path, at, bytes);
  }

  /** A read the checks make after a restart. */
  interface Read {
    byte[] read() throws IOException;
  }

  /**
   * Answers {@code read}, retrying for up to 60 s while it fails for a reason other than absence: after a restart a
   * block's only live replica may sit on a DataNode that has not re-registered or reported yet.
   */
  static byte[] awaitAnswer(Read read) throws IOException {
    return awaitAnswer(read, 60);
  }

  /** {@link #awaitAnswer(Read)} retrying for up to {@code seconds}. */
  static byte[] awaitAnswer(Read read, int seconds) throws IOException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (true) {
      try {
        return read.read();
      } catch (FileNotFoundException e) {
        return null;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted", interrupted);
        }
      }
    }
  }

  /** The NameNode's time after the last op; returns once the physical clock is past it. */
  static long settle(FreezeFrameFileSystem fs) throws IOException {
    HlcTimestamp now = fs.currentTime();
    while (PhysicalClock.system().currentTimeMicros() <= now.physicalMicros() + 1) {
      Thread.onSpinWait();
    }
    return now.physicalMicros();
  }
}
