package io.fffs.common.security;

import java.util.List;

/**
 * The block keys a NameNode holds at one moment: the retired keys whose tokens may still be valid, the key that
 * signs now, the next one (already known to DataNodes) and when the next one takes over. What a NameNode keeps
 * across restarts, so that tokens it handed out before a restart stay valid after it.
 */
public record BlockKeySet(List<BlockKey> retired, BlockKey current, BlockKey next, long currentUntilMillis) {
  public BlockKeySet {
    retired = List.copyOf(retired);
  }

  /** Where a NameNode keeps its key sets: each new set is kept before it signs or is handed to a DataNode. */
  @FunctionalInterface
  public interface Store {
    void keep(BlockKeySet keys) throws java.io.IOException;
  }
}
