package io.fffs.bench;

import java.io.Closeable;
import java.io.IOException;

/** Closing several things where one failing must not leave the others open. */
public final class Closeables {
  private Closeables() {}

  /** Closes every one of {@code all}; throws the first failure after trying them all. */
  public static void closeAll(Iterable<? extends Closeable> all) throws IOException {
    IOException failure = null;
    for (Closeable c : all) {
      try {
        c.close();
      } catch (IOException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
