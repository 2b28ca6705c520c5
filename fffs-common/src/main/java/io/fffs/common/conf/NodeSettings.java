package io.fffs.common.conf;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A node's start with a port or directory its settings name that it cannot use: a typed error
 * ({@link ErrorCode#SETTING_UNUSABLE}) naming the setting, its value and what to do, instead of a bare
 * {@code BindException} or a process left half-started.
 */
public final class NodeSettings {
  private NodeSettings() {}

  /** Something that binds a port. */
  @FunctionalInterface
  public interface Binding<T> {
    T bind() throws IOException;
  }

  /**
   * Runs {@code binding} of the address setting {@code key} names; a port that cannot be bound (another process
   * holds it) becomes {@code SETTING_UNUSABLE} naming the setting. Other failures pass unchanged.
   */
  public static <T> T bind(String key, Object address, Binding<T> binding) throws IOException {
    try {
      return binding.bind();
    } catch (IOException | RuntimeException e) {
      if (!bindFailure(e)) {
        throw e;
      }
      throw new FffsException(ErrorCode.SETTING_UNUSABLE, key + "=" + address + " cannot be bound ("
          + rootMessage(e) + "): another process holds the port; stop it or set " + key + " to a free port", e);
    }
  }

  /**
   * The directory setting {@code key} names, created if missing, when this process may write in it (the system's
   * access check, which also says no on a read-only file system); else {@code SETTING_UNUSABLE} naming the setting.
   */
  public static Path writableDirectory(String key, Path dir) throws FffsException {
    String why;
    try {
      Files.createDirectories(dir);
      why = !Files.isDirectory(dir) ? "not a directory" : Files.isWritable(dir) ? null : "not writable by this process";
    } catch (IOException | SecurityException e) {
      why = e.toString();
    }
    if (why != null) {
      throw new FffsException(ErrorCode.SETTING_UNUSABLE, key + "=" + dir + " cannot be used (" + why + "); fix"
          + " its permissions or set " + key + " to another directory");
    }
    return dir;
  }

  private static boolean bindFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      // Netty's native transport reports a taken port as an IOException whose message says so.
      if (t instanceof BindException || String.valueOf(t.getMessage()).contains("Address already in use")) {
        return true;
      }
    }
    return false;
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return root.toString();
  }
}
