package io.fffs.bench.wave;

/** The three ways the experiment rebuilds the movie (issue 8). */
enum Reconstruction {
  /** Frame k from HDFS snapshot k, taken by a thread every frame period while the sensors write. */
  HDFS("hdfs", "HDFS snapshots"),
  /** Frame k read from FFFS at {@code @s<t0 + k·period>}: the state at that NameNode/DataNode (HLC) time. */
  FFFS_SYSTEM("fffs-system", "FFFS system time"),
  /** Frame k read from FFFS at {@code @u<t0 + k·period>}: the records whose own sample time is up to then. */
  FFFS_USER("fffs-user", "FFFS user time");

  final String id;
  final String title;

  Reconstruction(String id, String title) {
    this.id = id;
    this.title = title;
  }
}
