package io.fffs.minicluster.crash;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;

/**
 * Keeps the history collector and the segment cleaner busy: it writes new files under {@link #DIR}, whose rule keeps
 * only the present, and deletes all but the newest few, so that every pass drops the deleted files' entries and the
 * cleaner copies the live records of half-dead segment files (the kept files' and every other block's) into new
 * ones. After a restart each kept file holds exactly what it was written with, unless a call on it was in flight.
 */
final class HistoryChurn extends Worker {
  static final Path DIR = new Path("/gc");
  /** What this worker's rule keeps: the present only. */
  static final String RULE = "0s";
  private static final int FILES = 3;

  /** Each file's content as last acknowledged. */
  final Map<Path, byte[]> files = new LinkedHashMap<>();
  /** The file of the call the crash interrupted: it may be absent, or hold (a prefix of) its bytes. */
  private Path inFlight;

  HistoryChurn(Configuration conf, long seed) {
    super(conf, seed);
  }

  @Override
  void work(FreezeFrameFileSystem fs) throws IOException {
    while (!stop) {
      Path path = fresh(DIR, "g-");
      byte[] content = new byte[20_000 + random.nextInt(150_000)];
      random.nextBytes(content);
      inFlight = path;
      try (FSDataOutputStream out = fs.create(path, false)) {
        out.write(content);
      }
      files.put(path, content);
      if (files.size() > FILES) {
        Path oldest = files.keySet().iterator().next();
        inFlight = oldest;
        assertThat(fs.delete(oldest, false)).as("delete %s", oldest).isTrue();
        files.remove(oldest);
      }
      inFlight = null;
    }
  }

  /** After a restart: every file not in doubt holds exactly its last acknowledged bytes. */
  void verify(FreezeFrameFileSystem fs, String when) throws IOException {
    if (inFlight != null) {
      files.remove(inFlight);  // present or not: no later call touches it
      inFlight = null;
    }
    for (Map.Entry<Path, byte[]> file : files.entrySet()) {
      byte[] now = awaitAnswer(() -> {
        try (FSDataInputStream in = fs.open(file.getKey())) {
          return in.readAllBytes();
        }
      });
      assertThat(now).as("%s as last acknowledged, with history collected and cleaned, %s", file.getKey(), when)
          .isEqualTo(file.getValue());
    }
  }
}
