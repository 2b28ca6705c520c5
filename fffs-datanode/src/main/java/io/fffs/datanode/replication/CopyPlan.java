package io.fffs.datanode.replication;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.MomentSet;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.datanode.store.LogEntry;
import io.fffs.datanode.store.LogSnapshot;
import io.fffs.datanode.store.log.BlockOp;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The calls a copy of a block makes on another DataNode so that the copy answers every read this one answers, with
 * the same stamps: worked out from the block's log and the moments garbage collection keeps of it
 * ({@link LogSnapshot}).
 *
 * <p>A log nothing was collected from is sent step by step ({@link LogSteps}), each WRITE with the range it wrote.
 * Collection drops the entries no kept moment reads (docs/history.md) and keeps some only for the page versions later
 * states read, so up to the window's first entry the states to restore are those a kept moment reads (and the
 * window's first): for each, the pages whose version differs from the previous such state, read as of it here; grown
 * from the copy's length where dropped entries grew the block, after a TRUNCATE where they cut it, in pieces of at
 * most a frame; a log that lost its CREATE is created first. The calls that restore one state carry its entry's
 * stamps on the last and, on the others, the stamps just below it: above the previous call's and above the last kept
 * moment before the entry, so no kept moment reads what they leave (the collected entries between the two states
 * held such stamps). The copy is told the kept moments, so it refuses the others as this DataNode does. From the
 * window's first entry on every entry is kept, and each is sent with its own range. The log's last state is restored
 * too, so the copy's last entry is this replica's.
 */
public final class CopyPlan {
  /**
   * One call: a WRITE of {@code [offset, offset + length)} with the bytes as of log entry {@code readIndex}
   * ({@code createHlc} not 0: the write creates the block, its CREATE at that stamp; a length of 0 with
   * {@code createHlc == hlc}: the CREATE alone), or a TRUNCATE to {@code offset}; at HLC {@code hlc} (packed), with
   * {@code userTime}, leaving the block {@code lengthAfter} bytes long.
   */
  public record Send(boolean truncate, long offset, int length, int readIndex, long hlc, long createHlc,
      long userTime, long lengthAfter) {}

  private final long blockId;
  private final MomentSet kept;
  private final LogSnapshot.PageChanges changes;
  private final int pageSize;
  private final int piece;
  private final List<Send> sends = new ArrayList<>();
  private boolean exists;
  private long length;
  private long lastHlc;
  private long lastUserTime;
  /** The log index of the last state restored (-1: none). */
  private int restored = -1;

  private CopyPlan(long blockId, LogSnapshot snapshot, int pageSize, int maxPayload) {
    this.blockId = blockId;
    this.kept = snapshot.kept();
    this.changes = snapshot.changes();
    this.pageSize = pageSize;
    this.piece = maxPayload >= pageSize ? maxPayload - maxPayload % pageSize : maxPayload;
  }

  /**
   * The calls that copy the block's log in {@code snapshot}, after the entry stamped {@code afterHlc} when that is
   * not 0 (the target follows the block already with the log up to that entry).
   *
   * @throws FffsException {@code UNSUPPORTED} for a log with a DELETE, an entry larger than a frame, or no stamps
   *     free for the calls that restore a state; {@code REPLICA_STALE} when the log has no entry at {@code afterHlc},
   *     or garbage collection dropped entries after it
   */
  public static List<Send> of(long blockId, LogSnapshot snapshot, long afterHlc, int pageSize, int maxPayload)
      throws FffsException {
    List<LogEntry> entries = snapshot.entries();
    MomentSet kept = snapshot.kept();
    CopyPlan plan = new CopyPlan(blockId, snapshot, pageSize, maxPayload);
    // Entries after this one follow each other as they were written; up to it, collection may have dropped some.
    int exactAfter = kept == null ? -1 : windowStart(entries, kept);
    int from = 0;
    if (afterHlc != 0) {
      int at = indexOf(entries, afterHlc);
      if (at < 0) {
        throw new FffsException(ErrorCode.REPLICA_STALE, "block " + blockId + " here has no entry at "
            + HlcTimestamp.valueOf(afterHlc) + ", the target's last: its log is no prefix of this one");
      }
      if (at < exactAfter) {
        throw new FffsException(ErrorCode.REPLICA_STALE, "garbage collection dropped entries of block " + blockId
            + " here after " + HlcTimestamp.valueOf(afterHlc) + ", the target's last entry, so the target cannot"
            + " be brought up to date by the entries after it");
      }
      LogEntry last = entries.get(at);
      plan.advance(last.hlc(), last.userTime(), last.lengthAfter());
      from = at + 1;
    }
    for (LogSteps.Step step : LogSteps.of(entries)) {
      int index = step.index();
      if (index < from) {
        continue;
      }
      long createHlc = step.createHlc() != 0 && step.createHlc() > afterHlc ? step.createHlc() : 0;
      if (index > exactAfter) {
        plan.exact(index, step.entry(), createHlc, maxPayload);
        continue;
      }
      if (createHlc != 0) {
        plan.createOnly(createHlc, step.entry().userTime());
      }
      LogEntry entry = step.entry();
      if (entry.op() == BlockOp.CREATE) {
        plan.createOnly(entry.hlc(), entry.userTime());
      } else if (entry.op() == BlockOp.DELETE) {
        throw plan.deleted(entry);
      } else if (index == exactAfter || index == entries.size() - 1 || read(entries, index, kept)) {
        plan.restore(index, entry);  // the last too: the copy ends where this replica does, trimmed yet or not
      }
    }
    return plan.sends;
  }

  /** Whether a kept moment reads the state after entry {@code index}: it lasts until the next entry's µs. */
  private static boolean read(List<LogEntry> entries, int index, MomentSet kept) {
    long from = HlcTimestamp.valueOf(entries.get(index).hlc()).physicalMicros();
    long to = index + 1 < entries.size() ? HlcTimestamp.valueOf(entries.get(index + 1).hlc()).physicalMicros()
        : MomentSet.END;
    return kept.intersects(from, to);
  }

  /** Entry {@code index} with its own range, as the primary stamped it. */
  private void exact(int index, LogEntry entry, long createHlc, int maxPayload) throws FffsException {
    switch (entry.op()) {
      case CREATE -> createOnly(entry.hlc(), entry.userTime());
      case WRITE -> {
        if (entry.length() > maxPayload) {
          throw new FffsException(ErrorCode.UNSUPPORTED, "entry " + index + " of block " + blockId + " wrote "
              + entry.length() + " bytes, more than a frame carries (" + maxPayload + ")");
        }
        sends.add(new Send(false, entry.offset(), entry.length(), index, entry.hlc(), createHlc, entry.userTime(),
            entry.lengthAfter()));
        advance(entry.hlc(), entry.userTime(), entry.lengthAfter());
      }
      case TRUNCATE -> {
        sends.add(new Send(true, entry.offset(), 0, index, entry.hlc(), 0, entry.userTime(), entry.lengthAfter()));
        advance(entry.hlc(), entry.userTime(), entry.lengthAfter());
      }
      default -> throw deleted(entry);
    }
  }

  /**
   * Restores the state after entry {@code index} — one a kept moment reads, the window's first or the log's last, so
   * every page of it has a version here: the pages that differ from the last state restored, and the length.
   */
  private void restore(int index, LogEntry entry) throws FffsException {
    long newLength = entry.lengthAfter();
    List<long[]> ranges = new ArrayList<>();
    BitSet changed = changes.between(restored, index);
    for (int page = changed.nextSetBit(0); page >= 0; page = changed.nextSetBit(page)) {
      int end = changed.nextClearBit(page);
      ranges.add(new long[] {(long) page * pageSize, Math.min(newLength, (long) end * pageSize)});
      page = end;
    }
    if (newLength > length) {
      // Dropped entries grew the block past what the copy holds: all of that is written, from the copy's end.
      ranges.removeIf(range -> range[0] >= length);
      long start = ranges.isEmpty() || ranges.get(ranges.size() - 1)[1] < length ? length
          : ranges.remove(ranges.size() - 1)[0];
      ranges.add(new long[] {start, newLength});
    }
    boolean cut = newLength < length;
    int calls = cut ? 1 : 0;
    for (long[] range : ranges) {
      calls += (int) ((range[1] - range[0] + piece - 1) / piece);
    }
    restored = index;
    if (calls == 0) {
      if (!exists) {
        createOnly(entry.hlc(), entry.userTime());
      } else {
        add(new Send(true, newLength, 0, index, entry.hlc(), 0, entry.userTime(), newLength));
      }
      return;
    }
    boolean create = !exists;
    long first = gapStamps(entry.hlc(), calls - 1 + (create ? 1 : 0));
    long createHlc = create ? first++ : 0;
    int call = 0;
    if (cut) {
      call++;
      add(new Send(true, newLength, 0, index, stampOf(call, calls, first, entry), 0,
          userTimeOf(call, calls, entry), newLength));
    }
    for (long[] range : ranges) {
      for (long at = range[0]; at < range[1]; at += piece) {
        int size = (int) Math.min(piece, range[1] - at);
        call++;
        add(new Send(false, at, size, index, stampOf(call, calls, first, entry), call == 1 ? createHlc : 0,
            userTimeOf(call, calls, entry), Math.max(length, at + size)));
      }
    }
  }

  private void createOnly(long hlc, long userTime) throws FffsException {
    if (exists) {
      throw new FffsException(ErrorCode.UNSUPPORTED, "block " + blockId + " is created again at "
          + HlcTimestamp.valueOf(hlc) + " in its log; a log with a delete is not copied");
    }
    sends.add(new Send(false, 0, 0, -1, hlc, hlc, userTime, 0));
    advance(hlc, userTime, 0);
  }

  private void add(Send send) {
    sends.add(send);
    advance(send.hlc(), send.userTime(), send.lengthAfter());
  }

  private void advance(long hlc, long userTime, long lengthAfter) {
    exists = true;
    lastHlc = hlc;
    lastUserTime = userTime;
    length = lengthAfter;
  }

  /** The last of the calls restoring an entry takes its stamps; call {@code call} (1-based) of the others, the gaps. */
  private static long stampOf(int call, int calls, long first, LogEntry entry) {
    return call == calls ? entry.hlc() : first + call - 1;
  }

  private long userTimeOf(int call, int calls, LogEntry entry) {
    return call == calls ? entry.userTime() : lastUserTime;
  }

  /**
   * The first of {@code count} stamps just below {@code entryHlc}: each above the last call's and above the last
   * kept moment before the entry, so no kept moment reads the states they leave.
   */
  private long gapStamps(long entryHlc, int count) throws FffsException {
    long first = entryHlc - count;
    long lastKept = kept.latestBefore(HlcTimestamp.valueOf(entryHlc).physicalMicros());
    if (count > 0 && (first <= lastHlc || HlcTimestamp.valueOf(first).physicalMicros() <= lastKept)) {
      throw new FffsException(ErrorCode.UNSUPPORTED, "block " + blockId + " cannot be copied: restoring the state"
          + " of its entry at " + HlcTimestamp.valueOf(entryHlc) + " takes " + (count + 1) + " calls (frames of "
          + piece + " bytes), and no stamps below it are free for the others (the previous call's is "
          + HlcTimestamp.valueOf(lastHlc) + (lastKept >= 0 ? ", a kept moment is at " + lastKept + " µs" : "")
          + "); a larger fffs.datatransfer.max-frame-size on both DataNodes lets it be copied");
    }
    return first;
  }

  /** The first entry of the window: the one current at its start (0 when none is older); the count when none. */
  private static int windowStart(List<LogEntry> entries, MomentSet kept) {
    long floor = kept.floor();
    if (floor == MomentSet.END) {
      return entries.size();
    }
    int current = -1;
    for (int i = 0; i < entries.size(); i++) {
      if (HlcTimestamp.valueOf(entries.get(i).hlc()).physicalMicros() <= floor) {
        current = i;
      }
    }
    return Math.max(0, current);
  }

  private static int indexOf(List<LogEntry> entries, long hlc) {
    for (int i = 0; i < entries.size(); i++) {
      if (entries.get(i).hlc() == hlc) {
        return i;
      }
    }
    return -1;
  }

  private FffsException deleted(LogEntry entry) {
    return new FffsException(ErrorCode.UNSUPPORTED, "block " + blockId + " was deleted at "
        + HlcTimestamp.valueOf(entry.hlc()) + " and written again; a log with a delete is not copied");
  }
}
