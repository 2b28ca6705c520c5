package io.fffs.client.tools;

import io.fffs.client.FileVersion;
import io.fffs.client.FreezeFrameFileSystem;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.GenericOptionsParser;

/**
 * {@code bin/fffs versions [-D fs.defaultFS=fffs://host:port] PATH}: one line per version of PATH, oldest first —
 * the marker that reads it, its ISO time, its length and the change that made it.
 */
public final class VersionsCommand {
  private VersionsCommand() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.addResource("fffs-site.xml");
    String[] rest = new GenericOptionsParser(conf, args).getRemainingArgs();
    if (rest.length != 1) {
      System.err.println("usage: bin/fffs versions [-D fs.defaultFS=fffs://host:port] PATH");
      System.exit(2);
    }
    Path path = new Path(rest[0]);
    try (FileSystem fs = FileSystem.newInstance(path.toUri().getScheme() == null ? FileSystem.getDefaultUri(conf)
        : path.toUri(), conf)) {
      if (!(fs instanceof FreezeFrameFileSystem)) {
        System.err.println("versions: " + fs.getUri() + " is not an fffs:// file system; set fs.defaultFS or give"
            + " an fffs:// path");
        System.exit(2);
      }
      for (FileVersion version : ((FreezeFrameFileSystem) fs).listVersions(path)) {
        System.out.println(version);
      }
    }
  }
}
