package io.fffs.spark;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The child JVM of {@link ShadedHadoopClientTest}: runs on the client jars and Hadoop's shaded client jars only, so
 * it may use nothing but the Hadoop {@code FileSystem} API and the client. Writes a file, overwrites it, and prints
 * {@code key=value} lines for the parent to check: what the present and two past states hold, and which jars
 * Hadoop's classes were loaded from.
 */
public final class ShadedClientRun {
  private ShadedClientRun() {}

  /** {@code args[0]}: the cluster's {@code fffs://host:port}; {@code args[1]}: a directory to write under. */
  public static void main(String[] args) throws Exception {
    URI cluster = URI.create(args[0]);
    Path file = new Path(cluster.toString() + args[1] + "/table.csv");
    // No fs.fffs.impl: the client jar's META-INF/services entry must find the scheme.
    try (FileSystem fs = FileSystem.get(cluster, new Configuration())) {
      long beforeCreate = between(fs);
      write(fs, file, "1,first\n");
      long afterFirst = between(fs);
      write(fs, file, "1,first\n2,second\n");

      print("filesystem", fs.getClass().getName());
      print("latest", read(fs, file));
      print("after-first", read(fs, at(file, afterFirst)));
      print("before-create-exists", String.valueOf(fs.exists(at(file, beforeCreate))));
      print("hadoop-api-jar", jarOf(FileSystem.class));
      print("protobuf-jar", jarOf(org.apache.hadoop.thirdparty.protobuf.Message.class));
    }
  }

  /**
   * A system time after every change made so far and before any made after this returns: the cluster's clock, then
   * a wait until the wall clock (shared with the cluster on this machine) has passed it.
   */
  private static long between(FileSystem fs) throws IOException, InterruptedException {
    long t = ((FreezeFrameFileSystem) fs).currentTime().physicalMicros();
    while (ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()) <= t) {
      Thread.sleep(1);
    }
    return t;
  }

  private static Path at(Path file, long micros) {
    return new Path(file.toString() + TimeSpec.system(micros).toMarker());
  }

  private static void write(FileSystem fs, Path file, String text) throws IOException {
    try (OutputStream out = fs.create(file, true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static String read(FileSystem fs, Path file) throws IOException {
    try (InputStream in = fs.open(file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace('\n', ';');
    }
  }

  private static String jarOf(Class<?> c) {
    return c.getProtectionDomain().getCodeSource().getLocation().getPath();
  }

  private static void print(String key, String value) {
    System.out.println(key + "=" + value);
  }
}
