package io.fffs.datanode.store;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Named fault hooks of the persistence path; every hook does nothing in production. A crash test installs a
 * subclass whose hook throws (an {@link IOException}) at the point to stop at: the persistence thread then writes
 * nothing more, the store refuses further writes with {@code IO_ERROR}, and the segment files look as they would
 * after the process died at that point. (HDFS's {@code DataNodeFaultInjector} is the model.)
 *
 * <p>While an injector other than the default is installed, the persistence thread writes each entry in pieces so
 * that the hooks fall exactly between them; in production a batch is one gathering write.
 */
public class StoreFaultInjector {
  private static final StoreFaultInjector NO_OP = new StoreFaultInjector();
  private static volatile StoreFaultInjector instance = NO_OP;

  public static StoreFaultInjector get() {
    return instance;
  }

  /** Installs {@code injector}; {@code null} restores the no-op default. */
  public static void set(StoreFaultInjector injector) {
    instance = injector == null ? NO_OP : injector;
  }

  /** Whether a test injector is installed. */
  public static boolean isActive() {
    return instance != NO_OP;
  }

  /** After an entry's pages reached its segment file, before any byte of its entry record. */
  public void afterPagesWritten(long blockId, int logIndex) throws IOException {}

  /** After the first half of an entry record was written, before the rest (a torn entry). */
  public void midEntry(long blockId, int logIndex) throws IOException {}

  /** After a batch was written, before the segment file is fsync'd. */
  public void beforeFsync(Path segment) throws IOException {}

  /** The segment cleaner has copied the first live record of {@code victim} into its new file, not yet synced. */
  public void cleanerMidCopy(Path victim) throws IOException {}

  /** The cleaner's new file {@code output} is complete and synced; no entry points into it yet. */
  public void cleanerAfterCopy(Path output) throws IOException {}

  /** Every live entry points into the new file now; {@code victim} is about to be deleted. */
  public void cleanerBeforeDelete(Path victim) throws IOException {}
}
