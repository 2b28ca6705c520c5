package io.fffs.client;

import io.fffs.client.errors.ClientErrors;
import io.fffs.client.errors.CodedException;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.VersionProto;
import io.fffs.common.proto.DataTransferProtos.BlockLogEntryProto;
import io.fffs.common.proto.DataTransferProtos.BlockLogOpProto;
import io.fffs.common.proto.DataTransferProtos.BlockLogResponseProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A file's writes and changed byte ranges, from its DataNodes' block logs ({@code BLOCK_LOG}: each entry's stamps
 * and range, never its bytes; the log walked as re-replication walks it). The NameNode names the blocks; each
 * block's log is asked of its replicas in read order, the next one when one fails. Nothing but metadata passes the
 * NameNode or the client.
 */
final class WriteQueries {
  private static final int PAGE = 10_000;
  /** Version changes after which the blocks before them are no longer all listed by the file's later states. */
  private static final Set<String> REPLACING = Set.of("truncate", "delete", "create", "restore");

  private final FffsClient client;

  WriteQueries(FffsClient client) {
    this.client = client;
  }

  /** One block with its offset in the file at the moment it was listed. */
  private record Listed(LocatedBlockProto block, long offset) {}

  /** One block's entries in a span, and from when its log is complete. */
  private record BlockLog(List<BlockLogEntryProto> entries, long completeFromMicros, int pageSize) {}

  /** The writes of {@code plain} stamped at system times within {@code [fromMicros, toMicros]}. */
  WriteHistory writes(String plain, long fromMicros, long toMicros) throws IOException {
    List<VersionProto> versions = ClientErrors.translating(() -> client.namenode().listVersions(plain));
    // Every block the file listed in the span: those of its last state, and of each state a cut or a replacement
    // ended (their blocks may be gone from every later state).
    List<TimeSpec> moments = new ArrayList<>();
    moments.add(toMicros == Long.MAX_VALUE ? TimeSpec.latest() : TimeSpec.system(toMicros));
    for (int i = 1; i < versions.size(); i++) {
      long start = readFrom(versions.get(i - 1));
      long end = versions.get(i).getHlc().getPacked() >>> HlcTimestamp.LOGICAL_BITS;
      if (REPLACING.contains(versions.get(i).getChange()) && end >= fromMicros && start <= toMicros
          && versions.get(i - 1).getLength() > 0) {
        moments.add(TimeSpec.system(start));
      }
    }
    Map<Long, Listed> blocks = new LinkedHashMap<>();
    for (TimeSpec moment : moments) {
      LocatedBlocksProto located;
      try {
        located = located(plain, moment, moment != moments.get(0));
      } catch (IOException e) {
        if (e instanceof CodedException && ((CodedException) e).code() == ErrorCode.IS_A_DIRECTORY) {
          continue;  // a directory: no bytes of its own
        }
        throw e;
      }
      if (located != null) {
        for (LocatedBlockProto block : located.getBlocksList()) {
          blocks.putIfAbsent(block.getBlock().getBlockId(), new Listed(block, block.getOffset()));
        }
      }
    }
    long after = fromMicros <= 0 ? 0 : HlcTimestamp.of(fromMicros, 0).packed() - 1;
    long to = toMicros == Long.MAX_VALUE ? 0 : HlcTimestamp.of(toMicros, HlcTimestamp.MAX_LOGICAL).packed();
    List<FileWrite> writes = new ArrayList<>();
    long completeFrom = 0;
    for (Listed listed : blocks.values()) {
      BlockLog log = log(plain, listed.block(), after, to);
      completeFrom = Math.max(completeFrom, log.completeFromMicros());
      for (BlockLogEntryProto entry : log.entries()) {
        if ((entry.getHlc() >>> HlcTimestamp.LOGICAL_BITS) < log.completeFromMicros()) {
          continue;  // what was dropped around it is not listed: leave the partial past out
        }
        if (entry.getOp() == BlockLogOpProto.LOG_WRITE && entry.getLength() > 0) {
          writes.add(new FileWrite(HlcTimestamp.valueOf(entry.getHlc()), entry.getUserTime(),
              FileWrite.Kind.WRITE, listed.offset() + entry.getOffset(), entry.getLength()));
        } else if (entry.getOp() == BlockLogOpProto.LOG_TRUNCATE) {
          writes.add(new FileWrite(HlcTimestamp.valueOf(entry.getHlc()), entry.getUserTime(),
              FileWrite.Kind.TRUNCATE, listed.offset() + entry.getOffset(), 0));
        }
      }
    }
    writes.sort(Comparator.comparing(FileWrite::hlc));
    return new WriteHistory(writes, completeFrom);
  }

  /**
   * The byte ranges of {@code plain} written or cut between two system times (either may be the latest): every
   * byte that differs between the two states lies in one of them. Exact to the byte where the blocks' logs are
   * complete from the earlier time on; where garbage collection dropped entries after it, a range is widened to the
   * page versions kept. Empty when the file exists at neither time.
   */
  List<ByteRange> changedRanges(String plain, TimeSpec first, TimeSpec second) throws IOException {
    if (first.kind() == TimeSpec.Kind.USER || second.kind() == TimeSpec.Kind.USER) {
      throw new FffsException(ErrorCode.UNSUPPORTED, "changed byte ranges are listed between system times only");
    }
    boolean firstEarlier = !first.isLatest() && (second.isLatest() || first.micros() <= second.micros());
    TimeSpec lo = firstEarlier ? first : second;
    TimeSpec hi = firstEarlier ? second : first;
    LocatedBlocksProto before = located(plain, lo, false);
    LocatedBlocksProto after = located(plain, hi, false);
    FileLayout a = before == null ? null : FileLayout.resolve(plain, before, lo, client.data());
    FileLayout b = after == null ? null : FileLayout.resolve(plain, after, hi, client.data());
    long lengthA = a == null ? 0 : a.length;
    long lengthB = b == null ? 0 : b.length;
    List<ByteRange> ranges = new ArrayList<>();
    if (lengthA != lengthB) {
      ranges.add(new ByteRange(Math.min(lengthA, lengthB), Math.abs(lengthA - lengthB)));
    }
    if (b != null && !lo.equals(hi)) {
      Map<Long, FileLayout.Block> earlier = new HashMap<>();
      if (a != null) {
        a.blocks.forEach(block -> earlier.put(block.blockId, block));
      }
      long afterHlc = lo.isLatest() ? Long.MAX_VALUE : HlcTimestamp.of(lo.micros(), HlcTimestamp.MAX_LOGICAL).packed();
      long toHlc = hi.isLatest() ? 0 : HlcTimestamp.of(hi.micros(), HlcTimestamp.MAX_LOGICAL).packed();
      for (FileLayout.Block block : b.blocks) {
        FileLayout.Block old = earlier.get(block.blockId);
        if (old == null || old.offset != block.offset) {
          ranges.add(new ByteRange(block.offset, block.length));  // a block the earlier state did not have there
          continue;
        }
        long end = Math.max(old.length, block.length);
        LocatedBlockProto located = after.getBlocksList().stream()
            .filter(l -> l.getBlock().getBlockId() == block.blockId).findFirst().orElseThrow();
        BlockLog log = log(plain, located, afterHlc, toHlc);
        boolean exact = log.completeFromMicros() <= lo.micros();
        for (BlockLogEntryProto entry : log.entries()) {
          long from;
          long to;
          if (entry.getOp() == BlockLogOpProto.LOG_WRITE) {
            from = entry.getOffset();
            to = entry.getOffset() + entry.getLength();
          } else if (entry.getOp() == BlockLogOpProto.LOG_TRUNCATE) {
            from = entry.getOffset();
            to = end;
          } else {
            continue;
          }
          if (!exact) {
            // Entries dropped in the span left their bytes in page versions a kept entry wrote.
            from = from / log.pageSize() * log.pageSize();
            to = Math.min(end, (to + log.pageSize() - 1) / log.pageSize() * log.pageSize());
          }
          if (to > from) {
            ranges.add(new ByteRange(block.offset + from, to - from));
          }
        }
      }
    }
    return merge(ranges, Math.max(lengthA, lengthB));
  }

  /** {@code ranges} clipped to {@code [0, limit)}, sorted, overlapping and touching ones joined. */
  static List<ByteRange> merge(List<ByteRange> ranges, long limit) {
    List<ByteRange> sorted = new ArrayList<>(ranges);
    sorted.sort(Comparator.comparingLong(ByteRange::offset));
    List<ByteRange> merged = new ArrayList<>();
    long start = -1;
    long end = -1;
    for (ByteRange range : sorted) {
      long from = Math.max(0, range.offset());
      long to = Math.min(limit, range.end());
      if (to <= from) {
        continue;
      }
      if (start >= 0 && from <= end) {
        end = Math.max(end, to);
      } else {
        if (start >= 0) {
          merged.add(new ByteRange(start, end - start));
        }
        start = from;
        end = to;
      }
    }
    if (start >= 0) {
      merged.add(new ByteRange(start, end - start));
    }
    return merged;
  }

  /** The moment from which a version reads (its start, or the horizon for one current there). */
  private static long readFrom(VersionProto version) {
    return version.hasReadableFromMicros() ? version.getReadableFromMicros()
        : version.getHlc().getPacked() >>> HlcTimestamp.LOGICAL_BITS;
  }

  /** The file's blocks at {@code time}; null when it did not exist then (or, if {@code optional}, was collected). */
  private LocatedBlocksProto located(String plain, TimeSpec time, boolean optional) throws IOException {
    try {
      return client.namenode().getBlockLocations(plain, time, 0, Long.MAX_VALUE);
    } catch (IOException e) {
      if (optional && e instanceof FffsException && ((FffsException) e).code() == ErrorCode.HISTORY_EXPIRED) {
        return null;
      }
      throw ClientErrors.translate(e);
    }
  }

  /** The block's entries stamped in ({@code afterHlc}, {@code toHlc}], page by page, from one of its replicas. */
  private BlockLog log(String plain, LocatedBlockProto block, long afterHlc, long toHlc) throws IOException {
    long blockId = block.getBlock().getBlockId();
    List<BlockLogEntryProto> entries = new ArrayList<>();
    Set<String> failed = new HashSet<>();
    long after = afterHlc;
    long completeFrom = 0;
    int pageSize = 1;
    while (true) {
      long from = after;
      BlockLogResponseProto page = ReplicaFailover.run(plain, blockId,
          ReplicaOrder.order(block.getLocationsList(), failed, client.data()::skewedAhead), failed,
          replica -> client.data().blockLog(replica, blockId, FileLayout.tokenOf(block), from, toHlc, PAGE));
      entries.addAll(page.getEntriesList());
      completeFrom = Math.max(completeFrom, page.getCompleteFromMicros());
      pageSize = Math.max(1, page.getPageSize());
      if (!page.getMore() || page.getEntriesCount() == 0) {
        return new BlockLog(entries, completeFrom, pageSize);
      }
      after = page.getEntries(page.getEntriesCount() - 1).getHlc();
    }
  }
}
