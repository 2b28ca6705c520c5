package io.fffs.namenode.fs;

import io.fffs.common.time.TimeSpec;
import java.io.IOException;

/** How the queries read the namespace ({@link Namesystem} owns it): under the read lock, as of a limit. */
interface QueryPath {
  /** One read of the namespace, run under the read lock. */
  interface Read<T> {
    T run() throws IOException;
  }

  /** Runs {@code read} under the read lock. */
  <T> T query(Read<T> read) throws IOException;

  /**
   * The lookup limit for {@code time}: the latest state for {@code LATEST} and user times (the namespace is
   * resolved at the current time then), else the packed-HLC limit of a system time once the wait-until-past rule
   * holds for it (the clock has passed it and every edit up to it is durable).
   */
  long limitFor(TimeSpec time, String subject) throws IOException;
}
