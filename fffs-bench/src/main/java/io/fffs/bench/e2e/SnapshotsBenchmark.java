package io.fffs.bench.e2e;

import java.nio.file.Path;

final class SnapshotsBenchmark implements EndToEndBenchmark.Run {
  @Override
  public String run(BenchArgs args, Path tmp) {
    throw new UnsupportedOperationException("not yet");
  }
}
