package io.fffs.spark;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * A Spark {@code local[2]} job against an FFFS cluster that runs elsewhere (fffs-dist's multi-host test starts it in
 * a JVM of its own, with this module's test class path): it writes a Parquet table, overwrites it, then reads it as
 * of the moment between the two through the plain {@code table@s<t>} path and now. Prints one line per check and
 * exits 0 when every check held, 1 when one did not.
 *
 * <pre>AsOfJob fffs://HOST:PORT /TABLE</pre>
 */
public final class AsOfJob {
  private AsOfJob() {}

  public static void main(String[] args) throws Exception {
    String root = args[0];
    String table = root + args[1];
    SparkSession spark = LocalSpark.on("fffs-as-of-job", root);
    boolean held;
    try (FileSystem fs = FileSystem.newInstance(URI.create(root), new Configuration())) {
      rows(spark, 0, 100).write().mode(SaveMode.Overwrite).parquet(table);
      long between = between((FreezeFrameFileSystem) fs);
      rows(spark, 100, 150).write().mode(SaveMode.Overwrite).parquet(table);
      held = check("as of the first write", ids(spark.read().parquet(table + TimeSpec.system(between).toMarker())),
          expected(0, 100));
      held &= check("now", ids(spark.read().parquet(table)), expected(100, 150));
    } finally {
      spark.stop();
    }
    System.exit(held ? 0 : 1);
  }

  private static Dataset<Row> rows(SparkSession spark, int from, int to) {
    List<Row> rows = new ArrayList<>();
    for (int i = from; i < to; i++) {
      rows.add(RowFactory.create(i, (long) i * i));
    }
    return spark.createDataFrame(rows, SparkAsOfReadTest.SCHEMA).repartition(2);
  }

  /** The cluster's time now, once this host's clock has passed it: after the last change, before the next. */
  private static long between(FreezeFrameFileSystem fs) throws Exception {
    long t = fs.currentTime().physicalMicros();
    while (PhysicalClock.system().currentTimeMicros() <= t) {
      Thread.sleep(1);
    }
    return t;
  }

  private static List<String> ids(Dataset<Row> table) {
    return table.collectAsList().stream().map(r -> r.getInt(0) + ":" + r.getLong(1)).sorted()
        .collect(Collectors.toList());
  }

  private static List<String> expected(int from, int to) {
    List<String> rows = new ArrayList<>();
    for (int i = from; i < to; i++) {
      rows.add(i + ":" + (long) i * i);
    }
    rows.sort(null);
    return rows;
  }

  private static boolean check(String what, List<String> actual, List<String> expected) {
    boolean held = actual.equals(expected);
    System.out.println((held ? "HELD " : "FAILED ") + what + ": " + actual.size() + " rows"
        + (held ? "" : ", expected " + expected.size() + ": " + actual));
    return held;
  }
}
