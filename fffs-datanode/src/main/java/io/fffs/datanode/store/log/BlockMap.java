package io.fffs.datanode.store.log;

import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** Block id → {@link Block}, for live and deleted blocks alike (deleted ones stay readable in the past). */
public final class BlockMap {
  private final ConcurrentMap<Long, Block> blocks = new ConcurrentHashMap<>();

  /** The block, or null if this store never had it. */
  public Block get(long blockId) {
    return blocks.get(blockId);
  }

  /** The block, made (with an empty log) if this store never had it. */
  public Block getOrCreate(long blockId) {
    return blocks.computeIfAbsent(blockId, Block::new);
  }

  /** Forgets a block whose whole history garbage collection dropped. */
  public void remove(long blockId) {
    blocks.remove(blockId);
  }

  public Collection<Block> all() {
    return blocks.values();
  }
}
