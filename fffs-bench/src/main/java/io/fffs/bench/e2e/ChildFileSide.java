package io.fffs.bench.e2e;

import io.fffs.bench.child.ChildJvm;
import java.io.IOException;
import java.nio.file.Path;

/** A {@link FileSide} in a JVM of its own ({@link FileSideMain}, {@code -Xmx2g}), driven through a {@link ChildJvm}. */
final class ChildFileSide implements FileSide {
  private final ChildJvm child;

  private ChildFileSide(ChildJvm child) {
    this.child = child;
  }

  /** Starts the child JVM of system {@code name} ({@code FFFS} or {@code HDFS}) and waits until it is up. */
  static ChildFileSide start(String name, Path dir, long arena) throws IOException {
    return new ChildFileSide(ChildJvm.start(name, "2g", FileSideMain.class, name, dir.toString(),
        String.valueOf(arena)));
  }

  @Override
  public String name() {
    return child.name();
  }

  @Override
  public JitWarmUp.Result warmUp(int[] packets, long passBytes, int minPasses, int maxPasses) throws IOException {
    StringBuilder sizes = new StringBuilder();
    for (int packet : packets) {
      sizes.append(sizes.length() == 0 ? "" : ",").append(packet);
    }
    String[] answer = child.ask("warmup " + sizes + " " + passBytes + " " + minPasses + " " + maxPasses);
    try {
      return JitWarmUp.Result.parse(answer);
    } catch (RuntimeException e) {
      throw new IOException("the " + name() + " child answered '" + String.join(" ", answer)
          + "' to warmup; expected passes, bytes and a share", e);
    }
  }

  @Override
  public double write(String path, long total, int packet) throws IOException {
    return number(child.ask("write " + path + " " + total + " " + packet));
  }

  @Override
  public double read(String path, long total, int packet, int readBuffer) throws IOException {
    return number(child.ask("read " + path + " " + total + " " + packet + " " + readBuffer));
  }

  @Override
  public long persistedBytes() throws IOException {
    return (long) number(child.ask("persisted"));
  }

  @Override
  public double awaitQuiet() throws IOException {
    return number(child.ask("quiet"));
  }

  private double number(String[] answer) throws IOException {
    if (answer.length != 1) {
      throw new IOException("the " + name() + " child answered '" + String.join(" ", answer) + "'; expected a number");
    }
    return Double.parseDouble(answer[0]);
  }

  @Override
  public void close() throws IOException {
    child.close();
  }
}
