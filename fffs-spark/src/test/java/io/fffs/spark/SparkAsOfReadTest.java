package io.fffs.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple3;

/**
 * Spark 4.2.0 ({@code local[2]}) writes Parquet and CSV tables to {@code fffs://}, overwrites and appends to them,
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
    spark = LocalSpark.on("fffs-as-of", root);
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

  // ---- temporal parallelism (paper, Figure 2) -----------------------------------------------------------------

  static final int TIMES = 50;
  static final StructType EVENTS = new StructType()
      .add("id", DataTypes.LongType, false)
      .add("amount", DataTypes.LongType, false);

  /** Time → "count:sum" of the events table at that time; built once (through the FileSystem API, it is quick). */
  static Map<Long, String> eventHistory;

  /**
   * 50 changes to a CSV table {@code /tables/events} — new part files, appends, overwrites, renames and deletes —
   * with a system time recorded strictly after each, and the count and sum of {@code amount} the table had then.
   */
  static synchronized Map<Long, String> eventHistory() throws Exception {
    if (eventHistory != null) {
      return eventHistory;
    }
    org.apache.hadoop.fs.Path table = new org.apache.hadoop.fs.Path("/tables/events");
    fs.mkdirs(table);
    Map<String, List<Long>> files = new LinkedHashMap<>();
    Map<Long, String> history = new LinkedHashMap<>();
    long nextId = 0;
    for (int step = 0; step < TIMES; step++) {
      List<Long> amounts = new ArrayList<>();
      for (int k = 0; k <= step % 5; k++) {
        amounts.add(step * 100L + k);
      }
      List<String> names = new ArrayList<>(files.keySet());
      String name;
      boolean append = false;
      if (step % 6 == 0 && names.size() >= 2) {
        name = names.get(step % names.size());        // overwrite a part file
        files.put(name, new ArrayList<>(amounts));
      } else if (step % 6 == 3 && names.size() >= 3) {
        fs.delete(new org.apache.hadoop.fs.Path(table, names.get(0)), false);
        files.remove(names.get(0));
        history.put(between(), summary(files));
        continue;
      } else if (step % 10 == 7 && !names.isEmpty()) {
        String from = names.get(names.size() - 1);
        String to = "part-renamed-" + step + ".csv";
        fs.rename(new org.apache.hadoop.fs.Path(table, from), new org.apache.hadoop.fs.Path(table, to));
        files.put(to, files.remove(from));
        history.put(between(), summary(files));
        continue;
      } else if (step % 4 == 1 && !names.isEmpty()) {
        name = names.get(0);                          // append to the oldest part file
        files.get(name).addAll(amounts);
        append = true;
      } else {
        name = String.format("part-%05d.csv", step);  // a new part file
        files.put(name, new ArrayList<>(amounts));
      }
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(table, name);
      try (OutputStream out = append ? fs.append(file) : fs.create(file, true)) {
        StringBuilder lines = new StringBuilder();
        for (long amount : amounts) {
          lines.append(nextId++).append(',').append(amount).append('\n');
        }
        out.write(lines.toString().getBytes(StandardCharsets.UTF_8));
      }
      history.put(between(), summary(files));
    }
    assertThat(history).hasSize(TIMES);
    assertThat(history.values()).as("the history really changes").hasSizeGreaterThan(TIMES / 2);
    eventHistory = history;
    return history;
  }

  static String summary(Map<String, List<Long>> files) {
    long count = 0;
    long sum = 0;
    for (List<Long> amounts : files.values()) {
      count += amounts.size();
      sum += amounts.stream().mapToLong(Long::longValue).sum();
    }
    return count + ":" + sum;
  }

  /**
   * Figure 2 as written: one Spark job over the 50 times; each task opens {@code fffs://…/events@s<t>} with the
   * plain Hadoop FileSystem API on its executor, lists it (the children keep the marker) and sums every line.
   */
  @Test
  void aggregateAtFiftyTimesInOneJobThroughTheFileSystemApi() throws Exception {
    Map<Long, String> history = eventHistory();
    String table = root + "/tables/events";
    // What an executor needs to open fffs:// paths (on a real cluster: spark.hadoop.* or core-site.xml).
    HashMap<String, String> hadoopConf = new HashMap<>();
    hadoopConf.put("fs.fffs.impl", FreezeFrameFileSystem.class.getName());
    hadoopConf.put("fs.AbstractFileSystem.fffs.impl", "io.fffs.client.Fffs");
    hadoopConf.put("fs.defaultFS", root);

    MapFunction<Long, Tuple3<Long, Long, Long>> aggregateAt = t -> {
      Configuration conf = new Configuration();
      hadoopConf.forEach(conf::set);
      org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(table + TimeSpec.system(t).toMarker());
      FileSystem fileSystem = FileSystem.get(URI.create(table), conf);
      long count = 0;
      long sum = 0;
      for (FileStatus part : fileSystem.listStatus(dir)) {
        if (!part.isFile() || part.getPath().getName().startsWith("_")) {
          continue;
        }
        try (BufferedReader lines = new BufferedReader(
            new InputStreamReader(fileSystem.open(part.getPath()), StandardCharsets.UTF_8))) {
          for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            count++;
            sum += Long.parseLong(line.substring(line.indexOf(',') + 1));
          }
        }
      }
      return new Tuple3<>(t, count, sum);
    };

    List<Tuple3<Long, Long, Long>> perTime = spark
        .createDataset(new ArrayList<>(history.keySet()), Encoders.LONG())
        .repartition(10)
        .map(aggregateAt, Encoders.tuple(Encoders.LONG(), Encoders.LONG(), Encoders.LONG()))
        .collectAsList();

    Map<Long, String> got = new HashMap<>();
    for (Tuple3<Long, Long, Long> row : perTime) {
      got.put(row._1(), row._2() + ":" + row._3());
    }
    assertThat(perTime).hasSize(TIMES);
    assertThat(got).isEqualTo(history);
  }

  /**
   * The same question in plain Spark SQL: the table read at 50 markers, each tagged with its time, one union, one
   * {@code groupBy} — one row per time.
   */
  @Test
  void aggregateAtFiftyTimesInOneQueryThroughDataFrames() throws Exception {
    Map<Long, String> history = eventHistory();
    Dataset<Row> all = null;
    for (long t : history.keySet()) {
      Dataset<Row> asOf = spark.read().schema(EVENTS).csv(at("/tables/events", t))
          .withColumn("t", functions.lit(t));
      all = all == null ? asOf : all.unionAll(asOf);
    }
    List<Row> perTime = all.groupBy("t")
        .agg(functions.count("*").as("n"), functions.sum("amount").as("total"))
        .collectAsList();

    Map<Long, String> got = new HashMap<>();
    for (Row row : perTime) {
      got.put(row.getLong(0), row.getLong(1) + ":" + row.getLong(2));
    }
    assertThat(perTime).hasSize(TIMES);
    assertThat(got).isEqualTo(history);
  }
}
