package io.fffs.client.tools;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.FsckReport;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.GenericOptionsParser;

/**
 * {@code bin/fffs fsck [-D fs.defaultFS=fffs://host:port] PATH [-files] [-blocks] [-locations] [-openforwrite]}:
 * the replicas of every block under PATH (a temporal path such as {@code /data@s1763719200000} checks the tree of
 * that time) and, with {@code -openforwrite}, the files open for write with the client writing each; the counts and
 * a HEALTHY / CORRUPT verdict ({@link FsckReport}). Exit code 0 when HEALTHY, 1 when CORRUPT, 2 for
 * a usage error.
 */
public final class FsckCommand {
  static final String USAGE = "usage: bin/fffs fsck [-D fs.defaultFS=fffs://host:port] PATH [-files] [-blocks]"
      + " [-locations] [-openforwrite]";

  private FsckCommand() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.addResource("fffs-site.xml");
    System.exit(run(conf, new GenericOptionsParser(conf, args).getRemainingArgs()));
  }

  /** Runs fsck with {@code args} (after the generic options); prints the report; returns the exit code. */
  public static int run(Configuration conf, String[] args) throws Exception {
    String path = null;
    boolean files = false;
    boolean blocks = false;
    boolean locations = false;
    boolean openForWrite = false;
    for (String arg : args) {
      switch (arg) {
        case "-openforwrite" -> openForWrite = true;
        case "-files" -> files = true;
        case "-blocks" -> blocks = true;
        case "-locations" -> locations = true;
        default -> {
          if (path != null || arg.startsWith("-")) {
            System.err.println("fsck: unexpected argument '" + arg + "'\n" + USAGE);
            return 2;
          }
          path = arg;
        }
      }
    }
    if (path == null) {
      System.err.println("fsck: no PATH\n" + USAGE);
      return 2;
    }
    Path target = new Path(path);
    try (FileSystem fs = FileSystem.newInstance(target.toUri().getScheme() == null
        ? FileSystem.getDefaultUri(conf) : target.toUri(), conf)) {
      if (!(fs instanceof FreezeFrameFileSystem)) {
        System.err.println("fsck: " + fs.getUri() + " is not an fffs:// file system; set fs.defaultFS or give an"
            + " fffs:// path");
        return 2;
      }
      FsckReport report = ((FreezeFrameFileSystem) fs).fsck(target);
      System.out.print(report.render(files, blocks || locations, locations, openForWrite));
      return report.healthy() ? 0 : 1;
    }
  }
}
