package io.fffs.datanode.store;

import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import java.util.BitSet;
import java.util.List;

/**
 * A block's log and the moments garbage collection keeps of it, read together, for a copy to another DataNode.
 * While it is open, garbage collection leaves the block's log as it is, so {@link BlockStore#readAtLogIndex} and
 * {@link #changes} see the entries listed here; close it when the copy ends.
 *
 * @param entries the log, oldest first
 * @param kept the moments the block answers for exactly (null: every moment, nothing was collected)
 * @param changes which pages differ between the states after two entries
 * @param release gives the log back to garbage collection
 */
public record LogSnapshot(List<LogEntry> entries, MomentSet kept, PageChanges changes, Runnable release)
    implements AutoCloseable {
  /** The page versions of a block's states, compared. */
  @FunctionalInterface
  public interface PageChanges {
    /**
     * The pages of the state after entry {@code to} (those its length covers) whose version differs from the state
     * after entry {@code from}; every one of them when {@code from} is -1.
     */
    BitSet between(int from, int to) throws FffsException;
  }

  @Override
  public void close() {
    release.run();
  }
}
