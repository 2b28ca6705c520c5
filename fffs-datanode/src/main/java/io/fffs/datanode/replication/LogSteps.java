package io.fffs.datanode.replication;

import io.fffs.datanode.store.LogEntry;
import io.fffs.datanode.store.log.BlockOp;
import java.util.ArrayList;
import java.util.List;

/**
 * A block's log as a copy of it replays it, step by step: the one walk of a log that both the re-replication plan
 * ({@link CopyPlan}) and the listing of a block's writes ({@link LogListing}) go through. A CREATE followed by a
 * WRITE at offset 0 is one step (the WRITE, carrying the CREATE's stamp), as the primary logged them for one packet.
 */
public final class LogSteps {
  /**
   * One step: entry {@code index} of the log, and the HLC of the CREATE it completes (0 when none). A CREATE that no
   * WRITE at 0 follows is a step of its own, with {@code createHlc} 0.
   */
  public record Step(int index, LogEntry entry, long createHlc) {}

  private LogSteps() {}

  /** The steps of {@code entries} (a block's log, oldest first), in order. */
  public static List<Step> of(List<LogEntry> entries) {
    List<Step> steps = new ArrayList<>(entries.size());
    for (int i = 0; i < entries.size(); i++) {
      LogEntry entry = entries.get(i);
      LogEntry next = i + 1 < entries.size() ? entries.get(i + 1) : null;
      if (entry.op() == BlockOp.CREATE && next != null && next.op() == BlockOp.WRITE && next.offset() == 0) {
        steps.add(new Step(i + 1, next, entry.hlc()));
        i++;
      } else {
        steps.add(new Step(i, entry, 0));
      }
    }
    return steps;
  }
}
