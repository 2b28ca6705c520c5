package io.fffs.bench.metadata;

import io.fffs.bench.child.ChildJvm;
import io.fffs.bench.metadata.ThroughputRunner.Measurement;
import java.io.IOException;
import java.nio.file.Path;

/** A contender in a JVM of its own ({@link SideMain}, {@code -Xmx2g}), driven through a {@link ChildJvm}. */
final class ChildSide implements MetadataSide {
  private final ChildJvm child;

  private ChildSide(ChildJvm child) {
    this.child = child;
  }

  /** Starts the child JVM of side {@code name} and waits until its cluster is up. */
  static ChildSide start(String name, int clients, Path baseDir) throws IOException {
    return new ChildSide(ChildJvm.start(name, "2g", SideMain.class, name, String.valueOf(clients),
        baseDir.toString()));
  }

  @Override
  public String name() {
    return child.name();
  }

  @Override
  public void prepare() throws IOException {
    child.ask("prepare");
  }

  @Override
  public Measurement run(Measured op, int threads, long nanos) throws IOException {
    String[] answer = child.ask("run " + op.name() + " " + threads + " " + nanos);
    if (answer.length != 2) {
      throw new IOException(name() + " child answered '" + String.join(" ", answer) + "' to run " + op);
    }
    return new Measurement(Long.parseLong(answer[0]), Long.parseLong(answer[1]));
  }

  @Override
  public long failoverMillis() throws IOException {
    String[] answer = child.ask("failover");
    if (answer.length != 1) {
      throw new IOException(name() + " child answered '" + String.join(" ", answer) + "' to failover");
    }
    return Long.parseLong(answer[0]);
  }

  /** The child JVM's CPU time so far, its JIT compilers' left out. */
  long cpuNanos() throws IOException {
    String[] answer = child.ask("cpu");
    if (answer.length != 1) {
      throw new IOException(name() + " child answered '" + String.join(" ", answer) + "' to cpu");
    }
    return Long.parseLong(answer[0]);
  }

  /** Asks the child to stop its cluster and exit; kills it if it has not within a minute. */
  @Override
  public void close() throws IOException {
    child.close();
  }
}
