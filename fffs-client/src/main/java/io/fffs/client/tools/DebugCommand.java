package io.fffs.client.tools;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LeaseRecoverable;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.GenericOptionsParser;

/**
 * {@code bin/fffs debug recoverLease -path PATH [-retries N]}, as {@code hdfs debug recoverLease}: closes a file
 * whose writer is held dead ({@code LeaseRecoverable.recoverLease}), asking again every 5 s while the NameNode
 * answers that it could not yet (N more times, 1 by default). Exit code 0 once the file is closed, 1 when it is
 * not, 2 for a usage error.
 */
public final class DebugCommand {
  static final String USAGE = "usage: bin/fffs debug recoverLease -path PATH [-retries N]";
  private static final long PAUSE_MS = 5_000;

  private DebugCommand() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.addResource("fffs-site.xml");
    System.exit(run(conf, new GenericOptionsParser(conf, args).getRemainingArgs(), System.out, System.err));
  }

  /** Runs the command with {@code args} (after the generic options); returns the exit code. */
  public static int run(Configuration conf, String[] args, PrintStream out, PrintStream err)
      throws IOException, InterruptedException {
    if (args.length == 0 || !args[0].equals("recoverLease")) {
      err.println("debug: the one command is recoverLease\n" + USAGE);
      return 2;
    }
    String path = null;
    int retries = 1;
    for (int i = 1; i < args.length; i++) {
      boolean valued = i + 1 < args.length;
      if (args[i].equals("-path") && valued) {
        path = args[++i];
      } else if (args[i].equals("-retries") && valued && args[i + 1].matches("\\d{1,6}")) {
        retries = Integer.parseInt(args[++i]);
      } else {
        err.println("debug: unexpected argument '" + args[i] + "'\n" + USAGE);
        return 2;
      }
    }
    if (path == null) {
      err.println("debug: no -path\n" + USAGE);
      return 2;
    }
    Path target = new Path(path);
    try (FileSystem fs = FileSystem.newInstance(target.toUri().getScheme() == null
        ? FileSystem.getDefaultUri(conf) : target.toUri(), conf)) {
      if (!(fs instanceof LeaseRecoverable)) {
        err.println("debug: " + fs.getUri() + " cannot recover leases; set fs.defaultFS or give an fffs:// path");
        return 2;
      }
      for (int attempt = 0; ; attempt++) {
        try {
          if (((LeaseRecoverable) fs).recoverLease(target)) {
            out.println("recoverLease SUCCEEDED on " + target);
            return 0;
          }
          out.println("recoverLease returned false.");
        } catch (FileNotFoundException e) {
          err.println("recoverLease got exception: " + e.getMessage());
          return 1;
        } catch (IOException e) {
          err.println("recoverLease got exception: " + e.getMessage());
        }
        if (attempt >= retries) {
          err.println("Giving up on recoverLease for " + target + " after " + (attempt + 1) + " tries.");
          return 1;
        }
        out.println("Retrying in " + PAUSE_MS + " ms...");
        Thread.sleep(PAUSE_MS);
        out.println("Retry #" + (attempt + 1));
      }
    }
  }
}
