package io.fffs.datanode.store.log;

import io.fffs.common.history.MomentSet;
import io.fffs.common.time.HlcTimestamp;

/**
 * Garbage collection of one block's history (docs/history.md): which entries of its log a kept moment still
 * reads, and a log and index of only those.
 *
 * <p>An entry is kept when it is the state some kept moment reads — its state is seen from its HLC's physical µs up
 * to the next entry's — or when it wrote a page version such a state reads. Every entry from the one current at the
 * start of the window ({@link MomentSet#floor}) on is kept, entries of one µs included, so that reads by user time
 * within the window find the same entries as before. What a read at a kept moment resolves to, and the bytes it
 * reads, are unchanged; entries are renumbered.
 */
public final class HistoryTrim {
  private HistoryTrim() {}

  /**
   * A block holding only the entries of {@code block} that {@code kept} reads, to take its log and index from; null
   * when every entry is still read. Caller holds the block's writer lock (or is recovery).
   */
  public static Block trimmed(Block block, MomentSet kept, int pageSize) {
    BlockLog log = block.log();
    int count = log.count();
    if (kept == null || kept.isAll() || count == 0) {
      return null;
    }
    boolean[] keep = new boolean[count];
    int window = windowStart(log, kept);
    for (int i = window; i < count; i++) {
      keep[i] = true;
    }
    for (int i = 0; i < window; i++) {
      long from = physical(log.hlc(i));
      long to = i + 1 < count ? physical(log.hlc(i + 1)) : MomentSet.END;
      if (kept.intersects(from, to)) {
        keep[i] = true;
        markPages(block, i, keep, pageSize);
      }
    }
    if (window < count) {
      markPages(block, window, keep, pageSize);  // later entries read its old pages or their own
    }
    int keptCount = 0;
    for (boolean k : keep) {
      keptCount += k ? 1 : 0;
    }
    if (keptCount == count) {
      return null;
    }
    Block trimmed = new Block(block.id());
    for (int i = 0; i < count; i++) {
      if (keep[i]) {
        LogApplier.apply(trimmed, log.op(i), log.userTime(i), log.hlc(i), log.offset(i), log.length(i),
            log.lengthAfter(i), log.firstSeq(i), log.diskLoc(i), pageSize);
      }
    }
    return trimmed;
  }

  /**
   * The first entry of the window: the one current at its start, or 0 when none is older; the log's count when
   * {@code kept} has no window.
   */
  public static int windowStart(BlockLog log, MomentSet kept) {
    long floor = kept.floor();
    if (floor == MomentSet.END) {
      return log.count();
    }
    return Math.max(0, log.indexAtSystemTime(floor));
  }

  /** Marks the entries whose page versions the state after entry {@code state} reads. */
  private static void markPages(Block block, int state, boolean[] keep, int pageSize) {
    BlockLog log = block.log();
    if (!log.existsAfter(state)) {
      return;
    }
    int pages = Pages.covering(0, log.lengthAfter(state), pageSize);
    for (int p = 0; p < pages; p++) {
      int version = block.index().versionAt(p, state);
      if (version >= 0) {
        keep[version] = true;
      }
    }
  }

  private static long physical(long packedHlc) {
    return HlcTimestamp.valueOf(packedHlc).physicalMicros();
  }
}
