package io.fffs.minicluster.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;

/**
 * Creates, renames, deletes and truncates small files, keeping a model of the namespace as acknowledged. The one
 * call a crash interrupts is kept with the worlds it may have left ({@link #pending}): after the restart exactly one
 * of them must be found, and the model follows it. The same churn runs round after round on the same model.
 */
final class NamespaceChurn extends Worker {
  private static final Path DIR = new Path("/ns");

  /** What a path may hold after an interrupted call: absent, exactly some bytes, or any prefix of some bytes. */
  record Expect(byte[] bytes, boolean prefix) {
    static final Expect ABSENT = new Expect(null, false);

    static Expect exactly(byte[] bytes) {
      return new Expect(bytes, false);
    }

    boolean matches(byte[] actual) {
      if (bytes == null || actual == null) {
        return bytes == actual;
      }
      if (actual == UNREADABLE) {
        return prefix;
      }
      return prefix ? actual.length <= bytes.length && Arrays.equals(actual, Arrays.copyOf(bytes, actual.length))
          : Arrays.equals(actual, bytes);
    }
  }

  /** Every file as the cluster acknowledged it. */
  final Map<Path, byte[]> files = new LinkedHashMap<>();
  /** What a read found for a file an interrupted create left open whose unsynced last block no DataNode holds. */
  private static final byte[] UNREADABLE = new byte[0];
  /** The worlds the interrupted call may have left, each a state of the paths it touched; null if none. */
  List<Map<Path, Expect>> pending;
  String pendingCall;

  NamespaceChurn(Configuration conf, long seed) {
    super(conf, seed);
  }

  @Override
  void work(FreezeFrameFileSystem fs) throws IOException {
    while (!stop) {
      List<Path> existing = new ArrayList<>(files.keySet());
      int op = existing.size() < 4 ? 0 : random.nextInt(4);
      if (op == 0) {
        Path path = fresh();
        byte[] content = new byte[1 + random.nextInt(20_000)];
        random.nextBytes(content);
        expect("create " + path, Map.of(path, Expect.ABSENT), Map.of(path, new Expect(content, true)));
        try (FSDataOutputStream out = fs.create(path, false)) {
          out.write(content);
        }
        files.put(path, content);
        acknowledged(fs, path);
        continue;
      }
      Path path = existing.get(random.nextInt(existing.size()));
      byte[] content = files.get(path);
      if (op == 1) {
        Path to = fresh();
        expect("rename " + path + " " + to, Map.of(path, Expect.exactly(content), to, Expect.ABSENT),
            Map.of(path, Expect.ABSENT, to, Expect.exactly(content)));
        assertThat(fs.rename(path, to)).as("rename %s %s", path, to).isTrue();
        files.remove(path);
        files.put(to, content);
        acknowledged(fs, path, to);
      } else if (op == 2) {
        expect("delete " + path, Map.of(path, Expect.exactly(content)), Map.of(path, Expect.ABSENT));
        assertThat(fs.delete(path, false)).as("delete %s", path).isTrue();
        files.remove(path);
        acknowledged(fs, path);
      } else {
        byte[] cut = Arrays.copyOf(content, random.nextInt(content.length + 1));  // its own length: a no-op
        expect("truncate " + path + " " + cut.length, Map.of(path, Expect.exactly(content)),
            Map.of(path, Expect.exactly(cut)));
        fs.truncate(path, cut.length);
        files.put(path, cut);
        acknowledged(fs, path);
      }
    }
  }

  private Path fresh() {
    return fresh(DIR, "f-");
  }

  @SafeVarargs
  private void expect(String call, Map<Path, Expect>... worlds) {
    pendingCall = call;
    pending = List.of(worlds);
  }

  /** The call returned: nothing is pending; what it changed is read as of just after it. */
  private void acknowledged(FreezeFrameFileSystem fs, Path... paths) throws IOException {
    pending = null;
    pendingCall = null;
    for (Path path : paths) {
      PastRead read = readPast(fs, path);
      assertThat(read.bytes()).as("%s read at %d right after it was acknowledged", path, read.micros())
          .isEqualTo(files.get(path));
    }
  }

  /**
   * After a restart: the interrupted call left exactly one of its worlds (the model then follows it), and every
   * other file holds exactly what was acknowledged.
   */
  void verify(FreezeFrameFileSystem fs, String when) throws IOException {
    Set<Path> inDoubt = pending == null ? Set.of() : pending.get(0).keySet();
    for (Map.Entry<Path, byte[]> file : files.entrySet()) {
      if (inDoubt.contains(file.getKey())) {
        continue;
      }
      assertThat(readNow(fs, file.getKey(), 60)).as("%s as acknowledged %s", file.getKey(), when)
          .isEqualTo(file.getValue());
      // Truncating to the current length changes nothing but is refused (LEASE_CONFLICT) if the file is open.
      try {
        fs.truncate(file.getKey(), file.getValue().length);
      } catch (IOException e) {
        throw new AssertionError(file.getKey() + ", whose close was acknowledged, is not closed " + when, e);
      }
    }
    if (pending == null) {
      return;
    }
    Map<Path, byte[]> found = new LinkedHashMap<>();
    for (Path path : inDoubt) {
      boolean mayBeLeftOpen = pending.stream().anyMatch(w -> w.get(path).prefix());
      try {
        found.put(path, readNow(fs, path, mayBeLeftOpen ? 10 : 60));
      } catch (IOException e) {
        // An unacknowledged create may leave the file open with a last block no DataNode made durable.
        if (!mayBeLeftOpen) {
          throw e;
        }
        found.put(path, UNREADABLE);
      }
    }
    Map<Path, Expect> world = pending.stream()
        .filter(w -> w.entrySet().stream().allMatch(e -> e.getValue().matches(found.get(e.getKey()))))
        .findFirst().orElseThrow(() -> new AssertionError("after the interrupted call '" + pendingCall + "' "
            + when + " the paths hold lengths " + lengths(found) + ", which no outcome of the call explains"));
    for (Map.Entry<Path, Expect> outcome : world.entrySet()) {
      Path path = outcome.getKey();
      // A file an interrupted create left may stay open (until lease recovery): the churn leaves it alone.
      if (found.get(path) == null || outcome.getValue().prefix()) {
        files.remove(path);
      } else {
        files.put(path, found.get(path));
      }
    }
    pending = null;
    pendingCall = null;
  }

  private static byte[] readNow(FreezeFrameFileSystem fs, Path path, int seconds) throws IOException {
    return awaitAnswer(() -> {
      try (FSDataInputStream in = fs.open(path)) {
        return in.readAllBytes();
      }
    }, seconds);
  }

  private static Map<Path, Integer> lengths(Map<Path, byte[]> found) {
    Map<Path, Integer> lengths = new LinkedHashMap<>();
    found.forEach((path, bytes) -> lengths.put(path, bytes == null ? -1 : bytes == UNREADABLE ? -2 : bytes.length));
    return lengths;
  }
}
