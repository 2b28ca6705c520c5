package io.fffs.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

class BenchArgsTest {
  @Test
  void parsesNameQuickAndOut() {
    BenchArgs args = BenchArgs.parse(new String[] {"throughput", "--quick", "--out", "/tmp/x"});
    assertEquals("throughput", args.name());
    assertTrue(args.quick());
    assertEquals(Paths.get("/tmp/x/throughput.csv"), args.csv());
    assertEquals(Paths.get("/tmp/x/throughput.png"), args.png());
    assertEquals("bin/fffs bench throughput --quick --out /tmp/x", args.command());
  }

  @Test
  void defaultsToFullRunUnderTarget() {
    BenchArgs args = BenchArgs.parse(new String[] {"latency"});
    assertFalse(args.quick());
    assertEquals(Paths.get("target", "bench", "latency.csv"), args.csv());
  }

  @Test
  void refusesUnknownArgumentsAndAMissingDirectory() {
    assertThrows(IllegalArgumentException.class, () -> BenchArgs.parse(new String[] {"latency", "--fast"}));
    assertThrows(IllegalArgumentException.class, () -> BenchArgs.parse(new String[] {"latency", "--out"}));
    assertThrows(IllegalArgumentException.class, () -> BenchArgs.parse(new String[] {}));
  }

  @Test
  void nearestRankPercentiles() {
    long[] sorted = new long[100];
    for (int i = 0; i < sorted.length; i++) {
      sorted[i] = i + 1;
    }
    assertEquals(50, LatencyBenchmark.percentile(sorted, 50));
    assertEquals(99, LatencyBenchmark.percentile(sorted, 99));
    assertEquals(100, LatencyBenchmark.percentile(sorted, 99.9));
    assertEquals(100, LatencyBenchmark.percentile(sorted, 100));
    assertEquals(1, LatencyBenchmark.percentile(sorted, 0));
  }
}
