package io.fffs.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class FreshPlanTest {
  @Test
  void modesGiveTheirSizesAndCallsAndOneRun() {
    FreshPlan quick = FreshPlan.of(true, new Properties());
    assertArrayEquals(new long[] {64L << 20}, quick.sizes());
    assertArrayEquals(new int[] {1 << 20}, quick.ios());
    assertEquals(1, quick.runs());
    assertEquals(0, quick.clusterWarmUp());
    FreshPlan full = FreshPlan.of(false, new Properties());
    assertArrayEquals(new long[] {256L << 20, 1L << 30, 4L << 30}, full.sizes());
    assertArrayEquals(new int[] {64 << 10, 1 << 20, 4 << 20}, full.ios());
  }

  @Test
  void propertiesChooseSizesCallsAndRuns() {
    Properties p = new Properties();
    p.setProperty(FreshPlan.SIZES, "1024, 4096");
    p.setProperty(FreshPlan.IOS, "1024,4096");
    p.setProperty(FreshPlan.RUNS, "5");
    p.setProperty(FreshPlan.CLUSTER_WARM_UP, "256");
    FreshPlan plan = FreshPlan.of(false, p);
    assertArrayEquals(new long[] {1L << 30, 4L << 30}, plan.sizes());
    assertArrayEquals(new int[] {1 << 20, 4 << 20}, plan.ios());
    assertEquals(5, plan.runs());
    assertEquals(256L << 20, plan.clusterWarmUp());
  }

  @Test
  void refusesWhatItCannotMeasureNamingTheSetting() {
    for (String[] bad : new String[][] {{FreshPlan.SIZES, "1g"}, {FreshPlan.SIZES, "0"}, {FreshPlan.RUNS, "-1"},
        {FreshPlan.RUNS, ""}, {FreshPlan.IOS, "64,4096"}, {FreshPlan.CLUSTER_WARM_UP, "-5"}}) {
      Properties p = new Properties();
      p.setProperty(bad[0], bad[1]);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FreshPlan.of(true, p));
      assertTrue(e.getMessage().contains(bad[0]), e.getMessage());
    }
  }

  @Test
  void medianOfRunsSkipsMissingOnes() {
    assertEquals(2.0, FreshBenchmark.median(new double[] {3, 1, 2}));
    assertEquals(2.5, FreshBenchmark.median(new double[] {4, 1, Double.NaN, 2, 3}));
    assertTrue(Double.isNaN(FreshBenchmark.median(new double[] {Double.NaN})));
  }
}
