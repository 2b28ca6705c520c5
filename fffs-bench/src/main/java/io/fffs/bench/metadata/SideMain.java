package io.fffs.bench.metadata;

import io.fffs.bench.BenchLogging;
import io.fffs.bench.child.ChildLoop;
import io.fffs.bench.metadata.ThroughputRunner.Measurement;
import java.nio.file.Paths;

/**
 * The main class of a {@link ChildSide}'s JVM: {@code SideMain FFFS|HDFS|FFFS-HA|HDFS-HA CLIENTS BASE_DIR} starts a
 * {@link LocalSide} and serves its parent's commands ({@link ChildLoop}):
 * <pre>
 *   prepare                          → ok
 *   run OP THREADS NANOS             → ok OPS NANOS       (OP a {@link MetadataSide.Measured} name)
 *   failover                         → ok MILLIS          (HA sides: stop the leader, time the next create)
 *   cpu                              → ok NANOS           (this JVM's CPU time, its JIT compilers' left out)
 * </pre>
 */
public final class SideMain {
  private SideMain() {}

  public static void main(String[] args) {
    BenchLogging.quiet();
    ChildLoop.run(() -> {
      LocalSide side = LocalSide.start(args[0], Integer.parseInt(args[1]), Paths.get(args[2]));
      return new ChildLoop.Side() {
        @Override
        public String serve(String[] command) throws Exception {
          switch (command[0]) {
            case "prepare" -> {
              side.prepare();
              return "";
            }
            case "run" -> {
              Measurement m = side.run(MetadataSide.Measured.valueOf(command[1]), Integer.parseInt(command[2]),
                  Long.parseLong(command[3]));
              return m.ops() + " " + m.nanos();
            }
            case "failover" -> {
              return String.valueOf(side.failoverMillis());
            }
            case "cpu" -> {
              return String.valueOf(JvmCpu.nanosWithoutJit());
            }
            default -> throw new IllegalArgumentException("unknown command " + command[0]);
          }
        }

        @Override
        public void close() throws Exception {
          side.close();
        }
      };
    });
  }
}
