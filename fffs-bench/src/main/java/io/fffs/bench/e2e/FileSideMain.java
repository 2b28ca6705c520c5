package io.fffs.bench.e2e;

import io.fffs.bench.BenchLogging;
import io.fffs.bench.child.ChildLoop;
import java.nio.file.Paths;
import java.util.Arrays;

/**
 * The main class of a {@link ChildFileSide}'s JVM: {@code FileSideMain FFFS|HDFS DIR ARENA_BYTES} starts a
 * {@link LocalFileSide} and serves its parent's commands ({@link ChildLoop}):
 * <pre>
 *   warmup P1,P2,… PASS MIN MAX         → ok PASSES BYTES COMPILE_SHARE
 *   write PATH TOTAL PACKET             → ok GBPS
 *   read PATH TOTAL PACKET READ_BUFFER  → ok GBPS
 *   persisted                           → ok BYTES
 *   quiet                               → ok SECONDS
 * </pre>
 */
public final class FileSideMain {
  private FileSideMain() {}

  public static void main(String[] args) {
    BenchLogging.quiet();
    ChildLoop.run(() -> {
      LocalFileSide side = LocalFileSide.start(args[0], Paths.get(args[1]), Long.parseLong(args[2]));
      return new ChildLoop.Side() {
        @Override
        public String serve(String[] c) throws Exception {
          switch (c[0]) {
            case "warmup" -> {
              int[] packets = Arrays.stream(c[1].split(",")).mapToInt(Integer::parseInt).toArray();
              return side.warmUp(packets, Long.parseLong(c[2]), Integer.parseInt(c[3]), Integer.parseInt(c[4]))
                  .encode();
            }
            case "write" -> {
              return String.valueOf(side.write(c[1], Long.parseLong(c[2]), Integer.parseInt(c[3])));
            }
            case "read" -> {
              return String.valueOf(side.read(c[1], Long.parseLong(c[2]), Integer.parseInt(c[3]),
                  Integer.parseInt(c[4])));
            }
            case "persisted" -> {
              return String.valueOf(side.persistedBytes());
            }
            case "quiet" -> {
              return String.valueOf(side.awaitQuiet());
            }
            default -> throw new IllegalArgumentException("unknown command " + c[0]);
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
