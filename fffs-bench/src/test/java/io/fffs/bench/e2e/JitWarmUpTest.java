package io.fffs.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JitWarmUpTest {
  @Test
  void runsAtLeastTheLeastAndAtMostTheMostPassesAndCountsTheirBytes() throws Exception {
    List<Integer> seen = new ArrayList<>();
    JitWarmUp.Result result = JitWarmUp.run(index -> {
      seen.add(index);
      return 1000 + index;
    }, 3, 5);
    assertTrue(result.passes() >= 3 && result.passes() <= 5, result.describe());
    assertEquals(result.passes(), seen.size());
    for (int i = 0; i < seen.size(); i++) {
      assertEquals(i, seen.get(i), "passes are numbered from 0");
    }
    long expected = 0;
    for (int i = 0; i < result.passes(); i++) {
      expected += 1000 + i;
    }
    assertEquals(expected, result.bytesWritten());
    assertTrue(result.passes() == 5 || result.lastCompileShare() <= JitWarmUp.SETTLED,
        "it stops early only once settled: " + result.describe());
  }

  @Test
  void stopsAfterTheFirstPassWithoutCompilationOnceTheLeastHaveRun() throws Exception {
    // A compiler clock that runs 1 s per pass in passes 0 and 1, then stands still; each pass takes ~2 ms.
    long[] compiling = {0};
    JitWarmUp.Pass pass = index -> {
      sleepMillis(2);
      compiling[0] += index < 2 ? 1000 : 0;
      return 10;
    };
    JitWarmUp.Result settled = JitWarmUp.run(pass, 1, 10, () -> compiling[0]);
    assertEquals(3, settled.passes(), "pass 2 is the first without compilation");
    assertEquals(30, settled.bytesWritten());
    assertEquals(0.0, settled.lastCompileShare());

    compiling[0] = 0;
    assertEquals(5, JitWarmUp.run(pass, 5, 10, () -> compiling[0]).passes(), "never fewer than the least");
  }

  @Test
  void aCompilerThatNeverSettlesRunsTheMostAndNoClockRunsTheMostToo() throws Exception {
    long[] compiling = {0};
    JitWarmUp.Result busy = JitWarmUp.run(index -> {
      sleepMillis(1);
      compiling[0] += 1000;
      return 1;
    }, 1, 4, () -> compiling[0]);
    assertEquals(4, busy.passes());
    assertTrue(busy.lastCompileShare() > JitWarmUp.SETTLED, busy.describe());

    JitWarmUp.Result untimed = JitWarmUp.run(index -> 1, 1, 4, null);
    assertEquals(4, untimed.passes(), "without a compilation clock every pass runs");
    assertTrue(Double.isNaN(untimed.lastCompileShare()));
  }

  private static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Test
  void refusesPassBoundsThatCannotBeMet() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JitWarmUp.run(i -> 0, 2, 1));
    assertTrue(e.getMessage().contains("need 1 <= min <= max"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> JitWarmUp.run(i -> 0, 0, 1));
  }

  @Test
  void aResultSurvivesTheChildProtocol() {
    JitWarmUp.Result result = new JitWarmUp.Result(4, 3L << 30, 0.031);
    assertEquals(result, JitWarmUp.Result.parse(result.encode().split(" ")));
    assertEquals("4 passes, 3072 MiB written, JIT compiling 3% of the last pass", result.describe());
    assertEquals(8L << 20, JitWarmUp.bytesPerPacket(1 << 10, 32L << 20), "at most 8,192 calls");
    assertEquals(32L << 20, JitWarmUp.bytesPerPacket(64 << 10, 32L << 20));
  }
}
