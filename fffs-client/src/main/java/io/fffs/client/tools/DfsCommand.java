package io.fffs.client.tools;

import io.fffs.common.conf.GenericArgs;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FsShell;
import org.apache.hadoop.util.ToolRunner;

/**
 * {@code bin/fffs dfs ARGS}: Hadoop's {@link FsShell} with {@code fffs-site.xml} loaded and the generic options
 * ({@code -D key=value} …) taken from any position, e.g. {@code bin/fffs dfs -ls / -D fs.defaultFS=fffs://nn:8020}.
 */
public final class DfsCommand {
  private DfsCommand() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.addResource("fffs-site.xml");
    String[] rest = GenericArgs.applyOrExit(conf, args, "dfs", "  " + GenericArgs.USAGE, 2);
    FsShell shell = new FsShell(conf);
    int exit;
    try {
      exit = ToolRunner.run(shell, rest);
    } finally {
      shell.close();
    }
    System.exit(exit);
  }
}
