package io.fffs.common.conf;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.GenericOptionsParser;

/**
 * Hadoop's generic options anywhere on a command line: {@code -D key=value}, {@code -Dkey=value}, {@code -conf FILE}
 * and {@code -fs URI} are taken from any position (Hadoop's {@link GenericOptionsParser} stops at the first other
 * argument), up to a {@code --}, which ends them and is dropped. Every {@code bin/fffs} command parses its command
 * line through here, so {@code bin/fffs minicluster --datanodes 2 -D fffs.transport=ucx} works as a user expects.
 */
public final class GenericArgs {
  /** The line every usage text ends with. */
  public static final String USAGE = "generic options, anywhere: -D key=value (or -Dkey=value), -conf FILE, -fs URI";

  private final List<String> generic = new ArrayList<>();
  private final List<String> rest = new ArrayList<>();

  private GenericArgs(String[] args) {
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--")) {
        rest.addAll(Arrays.asList(args).subList(i + 1, args.length));
        return;
      }
      if (arg.startsWith("-D") && arg.length() > 2) {
        generic.add(arg);
      } else if (arg.equals("-D") || arg.equals("-conf") || arg.equals("-fs")) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(arg + " needs a value");
        }
        generic.add(arg);
        generic.add(args[++i]);
      } else {
        rest.add(arg);
      }
    }
  }

  /** {@code args} with the generic options moved to the front, in their order; the rest keep theirs. */
  public static String[] hoist(String[] args) {
    GenericArgs split = new GenericArgs(args);
    List<String> all = new ArrayList<>(split.generic);
    all.addAll(split.rest);
    return all.toArray(new String[0]);
  }

  /**
   * {@link #apply} for a command's {@code main}: a malformed generic option is told on stderr as
   * {@code "command: what is wrong"} followed by {@code usage}, and the process exits with {@code exitCode}.
   */
  public static String[] applyOrExit(Configuration conf, String[] args, String command, String usage,
      int exitCode) {
    try {
      return apply(conf, args);
    } catch (IllegalArgumentException e) {
      System.err.println(command + ": " + e.getMessage() + "\n" + usage);
      System.exit(exitCode);
      throw e;  // not reached
    }
  }

  /**
   * Applies the generic options of {@code args} (from any position) to {@code conf} and returns the other arguments
   * in their order. A malformed one ({@code -D key} without {@code =value}, an option without its value) is an
   * {@link IllegalArgumentException}.
   */
  public static String[] apply(Configuration conf, String[] args) {
    GenericArgs split = new GenericArgs(args);
    for (int i = 0; i < split.generic.size(); i++) {
      String arg = split.generic.get(i);
      String property = arg.equals("-D") ? split.generic.get(++i) : arg.startsWith("-D") ? arg.substring(2) : null;
      if (property == null) {
        i++;
      } else if (property.indexOf('=') <= 0) {
        throw new IllegalArgumentException("-D takes key=value, not '" + property + "'");
      }
    }
    try {
      String[] left = new GenericOptionsParser(conf, split.generic.toArray(new String[0])).getRemainingArgs();
      if (left.length != 0) {
        throw new IllegalArgumentException("generic options not understood: " + Arrays.toString(left));
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("generic options: " + e.getMessage(), e);
    }
    return split.rest.toArray(new String[0]);
  }
}
