package io.fffs.client.tools;

import io.fffs.client.FileVersion;
import io.fffs.client.FileWrite;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.WriteHistory;
import io.fffs.common.conf.GenericArgs;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.time.TimeText;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * {@code bin/fffs versions [-D fs.defaultFS=fffs://host:port] PATH [--writes] [--from TIME] [--to TIME]
 * [--limit N]}: one line per version of PATH, oldest first — the marker that reads it, its ISO time, its length and
 * the change that made it — those that began within {@code [--from, --to]} (times as markers take them, e.g.
 * {@code s1763719200000}), the newest {@code --limit} of them. With {@code --writes}, the writes that changed the
 * file's bytes (from the DataNodes' logs) are listed among them, each with its range.
 */
public final class VersionsCommand {
  static final String USAGE = "usage: bin/fffs versions [-D fs.defaultFS=fffs://host:port] PATH [--writes]"
      + " [--from TIME] [--to TIME] [--limit N]\n  --writes  also list each write that changed the file's bytes"
      + " (HLC, offset, length, user time)\n  " + GenericArgs.USAGE;

  private VersionsCommand() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.addResource("fffs-site.xml");
    String path = null;
    long from = Long.MIN_VALUE;
    long to = Long.MAX_VALUE;
    int limit = Integer.MAX_VALUE;
    boolean writes = false;
    try {
      String[] rest = GenericArgs.apply(conf, args);
      for (int i = 0; i < rest.length; i++) {
        switch (rest[i]) {
          case "--from" -> from = time(rest, ++i);
          case "--to" -> to = time(rest, ++i);
          case "--limit" -> limit = Integer.parseInt(value(rest, ++i));
          case "--writes" -> writes = true;
          default -> {
            if (path != null) {
              throw new IllegalArgumentException("unexpected argument '" + rest[i] + "'");
            }
            path = rest[i];
          }
        }
      }
      if (path == null) {
        throw new IllegalArgumentException("no PATH");
      }
    } catch (IllegalArgumentException | FffsException e) {
      System.err.println("versions: " + e.getMessage() + "\n" + USAGE);
      System.exit(2);
      return;
    }
    Path target = new Path(path);
    try (FileSystem fs = FileSystem.newInstance(target.toUri().getScheme() == null
        ? FileSystem.getDefaultUri(conf) : target.toUri(), conf)) {
      if (!(fs instanceof FreezeFrameFileSystem)) {
        System.err.println("versions: " + fs.getUri() + " is not an fffs:// file system; set fs.defaultFS or give"
            + " an fffs:// path");
        System.exit(2);
      }
      FreezeFrameFileSystem fffs = (FreezeFrameFileSystem) fs;
      List<FileVersion> versions = fffs.listVersions(target);
      if (!writes) {
        select(versions, from, to, limit).forEach(System.out::println);
        return;
      }
      WriteHistory history = fffs.listWrites(target, from, to);
      for (String line : interleave(select(versions, from, to, Integer.MAX_VALUE), history.writes(), limit)) {
        System.out.println(line);
      }
      if (history.completeFromMicros() > Math.max(from, 0) && history.completeFromMicros() != Long.MAX_VALUE) {
        System.out.println("(writes before " + TimeText.isoMicros(history.completeFromMicros())
            + " were garbage-collected and are not listed)");
      } else if (history.completeFromMicros() == Long.MAX_VALUE) {
        System.out.println("(the history of the file's writes was garbage-collected; only kept versions are listed)");
      }
    }
  }

  /** The versions that began within {@code [from, to]} (µs), the newest {@code limit} of them, oldest first. */
  public static List<FileVersion> select(List<FileVersion> versions, long from, long to, int limit) {
    List<FileVersion> within = versions.stream()
        .filter(v -> v.hlc().physicalMicros() >= from && v.hlc().physicalMicros() <= to).toList();
    return within.subList(Math.max(0, within.size() - limit), within.size());
  }

  /** Versions and writes in HLC order (a version before the writes at its stamp), the newest {@code limit}. */
  public static List<String> interleave(List<FileVersion> versions, List<FileWrite> writes, int limit) {
    List<String> lines = new ArrayList<>(versions.size() + writes.size());
    int w = 0;
    for (FileVersion version : versions) {
      while (w < writes.size() && writes.get(w).hlc().compareTo(version.hlc()) < 0) {
        lines.add(writes.get(w++).toString());
      }
      lines.add(version.toString());
    }
    while (w < writes.size()) {
      lines.add(writes.get(w++).toString());
    }
    return lines.subList(Math.max(0, lines.size() - limit), lines.size());
  }

  private static long time(String[] args, int i) throws FffsException {
    TimeSpec time = TimeSpec.parse(value(args, i));
    if (time.kind() != TimeSpec.Kind.SYSTEM) {
      throw new IllegalArgumentException("--from and --to take system times, e.g. s1763719200000");
    }
    return time.micros();
  }

  private static String value(String[] args, int i) {
    if (i >= args.length) {
      throw new IllegalArgumentException(args[i - 1] + " needs a value");
    }
    return args[i];
  }
}
