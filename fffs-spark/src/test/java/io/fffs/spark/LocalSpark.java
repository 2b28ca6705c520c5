package io.fffs.spark;

import org.apache.spark.sql.SparkSession;

/** The {@code local[2]} Spark session the tests and jobs here start: loopback only, no UI, two shuffle partitions. */
final class LocalSpark {
  private LocalSpark() {}

  /** A builder for a session named {@code appName}, to which a caller adds its own settings. */
  static SparkSession.Builder builder(String appName) {
    return SparkSession.builder()
        .master("local[2]")
        .appName(appName)
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2");
  }

  /** A session whose default file system is the FFFS cluster at {@code root} ({@code fffs://host:port}). */
  static SparkSession on(String appName, String root) {
    return builder(appName)
        .config("spark.hadoop.fs.fffs.impl", "io.fffs.client.FreezeFrameFileSystem")
        .config("spark.hadoop.fs.AbstractFileSystem.fffs.impl", "io.fffs.client.Fffs")
        .config("spark.hadoop.fs.defaultFS", root)
        .getOrCreate();
  }
}
