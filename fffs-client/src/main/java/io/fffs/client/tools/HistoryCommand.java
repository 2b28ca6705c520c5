package io.fffs.client.tools;

import io.fffs.client.ByteRange;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.HistoryDifference;
import io.fffs.client.Pin;
import io.fffs.client.errors.CodedException;
import io.fffs.common.conf.GenericArgs;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TemporalPath;
import io.fffs.common.time.TimeSpec;
import java.util.List;
import io.fffs.common.history.RetentionRule;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * {@code bin/fffs history SUBCOMMAND [-D fs.defaultFS=fffs://host:port] ARGS}: bounded history (docs/history.md).
 * Exit code 0 on success, 1 when the file system refused (the error's code and sentence are printed), 2 for bad
 * usage.
 */
public final class HistoryCommand {
  static final String USAGE = String.join("\n",
      "usage: bin/fffs history SUBCOMMAND [-D fs.defaultFS=fffs://host:port] ARGS",
      "  retention PATH                 the rule that governs PATH, where it is set, its horizon",
      "  retention DIR RULE...          set DIR's rule: none | DURATION [EVERY/WITHIN ...] [Nv]",
      "                                 e.g. 1h 1h/1d 1d/30d 3v (superuser)",
      "  retention DIR inherit          remove DIR's own rule: it follows its parent's again",
      "  pin PATH[@TIME] NAME           keep PATH as it was at TIME (default now); read it as PATH@pin-NAME",
      "  unpin NAME                     remove a pin",
      "  pins [PATH]                    the pins on PATH (default /) and below",
      "  gc                             run a garbage-collection pass of the namespace now (superuser)",
      "  diff PATH@T1 PATH@T2 [--ranges] what changed in the tree between two moments (either may be plain:",
      "                                 now), with the byte ranges changed of a file (of every modified file",
      "                                 with --ranges); exit 0 when nothing, 1 when something, 2 on trouble",
      "  du PATH                        what the tree holds now and in its kept history; the DataNodes' disk",
      "  restore PATH@TIME [--to DEST]  restore a file or tree as it was, as a new version of PATH (or DEST);",
      "                                 the DataNodes copy the blocks",
      "  " + GenericArgs.USAGE);

  private HistoryCommand() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.addResource("fffs-site.xml");
    String[] rest = GenericArgs.applyOrExit(conf, args, "history", USAGE, 2);
    System.exit(run(conf, rest, System.out, System.err));
  }

  /** Runs one subcommand; returns the exit code. */
  public static int run(Configuration conf, String[] args, PrintStream out, PrintStream err) throws IOException {
    if (args.length == 0) {
      err.println(USAGE);
      return 2;
    }
    String sub = args[0];
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    Path anchor = new Path(rest.length > 0 && !sub.equals("unpin") ? rest[0] : "/");
    try (FileSystem fs = FileSystem.newInstance(anchor.toUri().getScheme() == null ? FileSystem.getDefaultUri(conf)
        : anchor.toUri(), conf)) {
      if (!(fs instanceof FreezeFrameFileSystem)) {
        err.println("history: " + fs.getUri() + " is not an fffs:// file system; set fs.defaultFS or give an"
            + " fffs:// path");
        return 2;
      }
      FreezeFrameFileSystem ffs = (FreezeFrameFileSystem) fs;
      try {
        return run(ffs, sub, rest, out, err);
      } catch (IOException e) {
        err.println(e.getMessage());
        return 1;
      }
    }
  }

  private static int run(FreezeFrameFileSystem fs, String sub, String[] args, PrintStream out, PrintStream err)
      throws IOException {
    switch (sub) {
      case "retention":
        if (args.length == 1) {
          out.println(fs.getRetention(new Path(args[0])));
          return 0;
        }
        if (args.length >= 2) {
          String text = String.join(" ", Arrays.copyOfRange(args, 1, args.length));
          RetentionRule rule = text.equals("inherit") ? null : RetentionRule.parse(text);
          fs.setRetention(new Path(args[0]), rule);
          out.println(args[0] + "\t" + (rule == null ? "inherit" : rule + "\t(" + rule.describe() + ")"));
          return 0;
        }
        break;
      case "pin":
        if (args.length == 2) {
          Pin pin = fs.pin(new Path(args[0]), args[1]);
          out.println(pin);
          return 0;
        }
        break;
      case "unpin":
        if (args.length == 1) {
          fs.unpin(args[0]);
          return 0;
        }
        break;
      case "pins":
        if (args.length <= 1) {
          for (Pin pin : fs.listPins(new Path(args.length == 0 ? "/" : args[0]))) {
            out.println(pin);
          }
          return 0;
        }
        break;
      case "diff":
        if (args.length == 2 || args.length == 3 && args[2].equals("--ranges")) {
          return diff(fs, args, out, err);
        }
        break;
      case "restore":
        if (args.length == 1 || args.length == 3 && args[1].equals("--to")) {
          long[] restored = fs.restore(new Path(args[0]), args.length == 3 ? new Path(args[2]) : null);
          out.println("restored\t" + restored[0] + " files, " + restored[1] + " directories, " + restored[2]
              + " bytes");
          return 0;
        }
        break;
      case "du":
        if (args.length == 1) {
          out.println(fs.historyUsage(new Path(args[0])));
          out.println(fs.dataNodeDiskUsage());
          return 0;
        }
        break;
      case "gc":
        if (args.length == 0) {
          long[] dropped = fs.collectHistory();
          out.println("inodes removed\t" + dropped[0] + "\nversions dropped\t" + dropped[1] + "\nnames dropped\t"
              + dropped[2]);
          return 0;
        }
        break;
      default:
        err.println("history: unknown subcommand '" + sub + "'");
        err.println(USAGE);
        return 2;
    }
    err.println(USAGE);
    return 2;
  }

  /** {@code \tbytes [a, b) [c, d)} for a modified file (nothing for a directory). */
  private static String changedBytes(FreezeFrameFileSystem fs, Path file, TimeSpec first, TimeSpec second)
      throws IOException {
    List<ByteRange> ranges;
    try {
      ranges = fs.changedRanges(file, first, second);
    } catch (IOException e) {
      if (e instanceof CodedException && ((CodedException) e).code() == ErrorCode.IS_A_DIRECTORY) {
        return "";
      }
      if (e instanceof FffsException && ((FffsException) e).code() == ErrorCode.UNSUPPORTED) {
        return "";  // between user times: no ranges
      }
      throw e;
    }
    StringBuilder text = new StringBuilder("\tbytes");
    ranges.forEach(range -> text.append(' ').append(range));
    return ranges.isEmpty() ? "\tbytes unchanged" : text.toString();
  }

  /** {@code diff PATH@T1 PATH@T2}: exit 0 when the tree did not change, 1 when it did, 2 on trouble (as diff). */
  private static int diff(FreezeFrameFileSystem fs, String[] args, PrintStream out, PrintStream err) {
    try {
      TemporalPath from = TemporalPath.parse(args[0]);
      TemporalPath to = TemporalPath.parse(args[1]);
      if (!from.plainPath().equals(to.plainPath())) {
        err.println("history diff compares one path at two moments; got " + from.plainPath() + " and "
            + to.plainPath());
        return 2;
      }
      TimeSpec first = fs.timeOf(new Path(args[0]));
      TimeSpec second = fs.timeOf(new Path(args[1]));
      List<HistoryDifference> differences = fs.diff(from.plainPath(), first, second);
      boolean ranges = args.length == 3
          || differences.size() == 1 && differences.get(0).kind() == HistoryDifference.Kind.MODIFIED;
      for (HistoryDifference difference : differences) {
        String line = difference.toString();
        if (ranges && difference.kind() == HistoryDifference.Kind.MODIFIED) {
          line += changedBytes(fs, new Path(difference.path()), first, second);
        }
        out.println(line);
      }
      return differences.isEmpty() ? 0 : 1;
    } catch (IOException e) {
      err.println(e.getMessage());
      return 2;
    }
  }
}
