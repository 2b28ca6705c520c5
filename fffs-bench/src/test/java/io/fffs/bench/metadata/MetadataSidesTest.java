package io.fffs.bench.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fffs.bench.metadata.MetadataSide.Measured;
import io.fffs.bench.metadata.ThroughputRunner.Measurement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The metadata benchmark's contenders: one in a JVM of its own, driven over its stdin and stdout. */
class MetadataSidesTest {
  @TempDir
  Path tmp;

  @Test
  void aSideInItsOwnJvmPreparesMeasuresAndStops() throws IOException {
    Path dir = tmp.resolve("fffs");
    try (ChildSide side = ChildSide.start("FFFS", 2, dir)) {
      IOException early = assertThrows(IOException.class, () -> side.run(Measured.STAT_PAST, 1, 1_000_000L));
      assertTrue(early.getMessage().contains("no past time"), early.getMessage());
      side.prepare();
      long cpuBefore = side.cpuNanos();
      for (Measured op : Measured.values()) {
        Measurement m = side.run(op, 2, 100_000_000L);
        assertTrue(m.ops() > 0, op + ": " + m);
      }
      assertTrue(side.cpuNanos() > cpuBefore, "the child's CPU time grew while it measured");
      IOException single = assertThrows(IOException.class, side::failoverMillis);
      assertTrue(single.getMessage().contains("one NameNode"), single.getMessage());
    }
    assertTrue(Files.notExists(dir), "the child removed its cluster's directory");
  }

  @Test
  void haSidesFailOverAndTakeChangesAgain() throws IOException {
    for (String name : new String[] {"FFFS-HA", "HDFS-HA"}) {
      try (ChildSide side = ChildSide.start(name, 1, tmp.resolve(name))) {
        assertTrue(side.run(Measured.MKDIRS, 1, 50_000_000L).ops() > 0, name);
        long failover = side.failoverMillis();
        assertTrue(failover > 0, name + ": " + failover);
        assertTrue(side.run(Measured.CREATE, 1, 50_000_000L).ops() > 0, name + " after its failover");
      }
    }
  }

  @Test
  void anUnknownSideIsRefusedByTheChild() {
    IOException e = assertThrows(IOException.class, () -> ChildSide.start("GFS", 1, tmp.resolve("gfs")).close());
    assertTrue(e.getMessage().contains("no side named GFS"), e.getMessage());
  }

  @Test
  void theSummarySaysWhereFffsIsBehind() {
    ResultTable table = new ResultTable();
    table.add(new ResultTable.Row("mkdirs", 1, 1200, 1000, Double.NaN));
    table.add(new ResultTable.Row("mkdirs", 8, 900, 1000, Double.NaN));
    table.add(new ResultTable.Row("getFileStatus, past time", 8, 950, Double.NaN, 1000));
    assertEquals("FFFS/HDFS: mkdirs 1.20 / 0.90 (1 / 8 threads); past/latest 0.95 (goal FFFS ≥ HDFS on every op:"
        + " missed at mkdirs with 8 threads)", table.summary());
    assertEquals("shared", MetadataBenchmark.separateJvms("shared") ? "separate" : "shared");
    assertThrows(IllegalArgumentException.class, () -> MetadataBenchmark.separateJvms("both"));
  }

  @Test
  void theHaTableSetsBothSystemsHaAgainstTheirSingleNameNodeInTheTableCsvAndPlot() throws IOException {
    HaTable table = new HaTable();
    table.add(new HaTable.Row("mkdirs", 8, 6000, 1500, 4000, 2000));
    table.failover("failover line");
    assertTrue(table.markdown().contains("| mkdirs | 8 | 6,000 | 1,500 | 0.25 | 4,000 | 2,000 | 0.50 | 0.75 |"),
        table.markdown());
    Path csv = tmp.resolve("out/metadata-ha.csv");
    table.writeCsv(csv);
    assertEquals(List.of("op,threads,fffs_1nn_ops_per_s,fffs_3nn_ops_per_s,fffs_3_over_1,"
        + "hdfs_1nn_ops_per_s,hdfs_ha_ops_per_s,hdfs_ha_over_1,fffs_ha_over_hdfs_ha",
        "\"mkdirs\",8,6000.000,1500.000,0.250,4000.000,2000.000,0.500,0.750"), Files.readAllLines(csv));
    Path png = tmp.resolve("out/metadata-ha.png");
    table.plot(png);
    assertTrue(Files.size(png) > 0);
  }
}
