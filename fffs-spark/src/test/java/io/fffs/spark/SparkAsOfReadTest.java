package io.fffs.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spark 4.1.3 ({@code local[2]}) writes Parquet and CSV tables to {@code fffs://}, overwrites and appends to them,
 * then reads {@code table@s<t>} with plain {@code spark.read().parquet(path)} — no option, no FFFS API — and gets
 * exactly the rows that existed at t. One cluster and one SparkSession serve the whole class (~10 s to start).
 */
class SparkAsOfReadTest {
  static final StructType SCHEMA = new StructType()
      .add("id", DataTypes.IntegerType, false)
      .add("v", DataTypes.LongType, false);

  @TempDir
  static Path baseDir;

  static MiniFffsCluster cluster;
  static FreezeFrameFileSystem fs;
  static SparkSession spark;
  static String root;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniFffsCluster.builder().baseDir(baseDir).numDataNodes(1).build();
    fs = cluster.getFileSystem();
    root = cluster.getURI().toString();
    spark = SparkSession.builder()
        .master("local[2]")
        .appName("fffs-as-of")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.hadoop.fs.fffs.impl", "io.fffs.client.FreezeFrameFileSystem")
        .config("spark.hadoop.fs.AbstractFileSystem.fffs.impl", "io.fffs.client.Fffs")
        .config("spark.hadoop.fs.defaultFS", root)
        .getOrCreate();
  }

  @AfterAll
  static void stop() throws Exception {
    if (spark != null) {
      spark.stop();
    }
    if (fs != null) {
      fs.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * A system time strictly after every change made so far and strictly before any change made after this returns:
   * the NameNode's HLC (which has merged every DataNode ack the writers saw), then a wait until the wall clock has
   * passed it, so the next event on any node is stamped later.
   */
  static long between() throws Exception {
    long t = fs.currentTime().physicalMicros();
    while (ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()) <= t) {
      Thread.sleep(1);
    }
    return t;
  }

  static String at(String path, long micros) {
    return root + path + TimeSpec.system(micros).toMarker();
  }

  static Dataset<Row> rows(int from, int to) {
    List<Row> rows = new ArrayList<>();
    for (int i = from; i < to; i++) {
      rows.add(RowFactory.create(i, (long) i * i));
    }
    // Two partitions, so each write leaves two part files (and the appends add more).
    return spark.createDataFrame(rows, SCHEMA).repartition(2);
  }

  static List<String> sorted(Dataset<Row> df) {
    return df.collectAsList().stream()
        .map(r -> r.getInt(0) + ":" + r.getLong(1))
        .sorted()
        .collect(Collectors.toList());
  }

  static List<String> expected(int[]... ranges) {
    List<String> out = new ArrayList<>();
    for (int[] range : ranges) {
      for (int i = range[0]; i < range[1]; i++) {
        out.add(i + ":" + (long) i * i);
      }
    }
    out.sort(null);
    return out;
  }

  @Test
  void parquetAndCsvAsOfEveryChange() throws Exception {
    String parquet = root + "/tables/sales_parquet";
    String csv = root + "/tables/sales_csv";
    Map<Long, List<String>> history = new LinkedHashMap<>();
    fs.mkdirs(new org.apache.hadoop.fs.Path("/tables"));
    long beforeTables = between();

    rows(0, 10).write().mode(SaveMode.Overwrite).parquet(parquet);
    rows(0, 10).write().mode(SaveMode.Overwrite).csv(csv);
    history.put(between(), expected(new int[] {0, 10}));

    rows(10, 15).write().mode(SaveMode.Append).parquet(parquet);
    rows(10, 15).write().mode(SaveMode.Append).csv(csv);
    history.put(between(), expected(new int[] {0, 15}));

    rows(100, 106).write().mode(SaveMode.Overwrite).parquet(parquet);
    rows(100, 106).write().mode(SaveMode.Overwrite).csv(csv);
    history.put(between(), expected(new int[] {100, 106}));

    rows(200, 203).write().mode(SaveMode.Append).parquet(parquet);
    rows(200, 203).write().mode(SaveMode.Append).csv(csv);
    history.put(between(), expected(new int[] {100, 106}, new int[] {200, 203}));

    rows(300, 301).write().mode(SaveMode.Overwrite).parquet(parquet);
    rows(300, 301).write().mode(SaveMode.Overwrite).csv(csv);

    // The present is the last overwrite.
    assertThat(sorted(spark.read().parquet(parquet))).isEqualTo(expected(new int[] {300, 301}));
    assertThat(sorted(spark.read().schema(SCHEMA).csv(csv))).isEqualTo(expected(new int[] {300, 301}));

    // Before the first write the table did not exist: Spark says so, as for any missing path.
    assertThatThrownBy(() -> spark.read().parquet(at("/tables/sales_parquet", beforeTables)).collectAsList())
        .isInstanceOf(AnalysisException.class)
        .hasMessageContaining("PATH_NOT_FOUND");
    // The past is read-only, also through Spark.
    assertThatThrownBy(() -> rows(0, 1).write().mode(SaveMode.Append).parquet(at("/tables/sales_parquet",
        history.keySet().iterator().next())))
        .hasStackTraceContaining("read-only");
    assertThat(sorted(spark.read().parquet(parquet))).isEqualTo(expected(new int[] {300, 301}));

    for (Map.Entry<Long, List<String>> state : history.entrySet()) {
      long t = state.getKey();
      assertThat(sorted(spark.read().parquet(at("/tables/sales_parquet", t))))
          .as("parquet at %s", TimeSpec.system(t).toMarker())
          .isEqualTo(state.getValue());
      assertThat(sorted(spark.read().schema(SCHEMA).csv(at("/tables/sales_csv", t))))
          .as("csv at %s", TimeSpec.system(t).toMarker())
          .isEqualTo(state.getValue());
    }
  }
}
