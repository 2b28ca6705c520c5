package io.fffs.datanode.replication;

import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.BlockLogEntryProto;
import io.fffs.common.proto.DataTransferProtos.BlockLogOpProto;
import io.fffs.common.proto.DataTransferProtos.BlockLogRequestProto;
import io.fffs.common.proto.DataTransferProtos.BlockLogResponseProto;
import io.fffs.datanode.store.BlockStore;
import io.fffs.datanode.store.LogEntry;

/**
 * The answer to {@code BLOCK_LOG}: a block's log walked as a re-replication copy walks it ({@link LogSteps}), each
 * step's stamps and range without its bytes — what {@code bin/fffs versions --writes} and the byte ranges of
 * {@code bin/fffs history diff} are made of. Only metadata leaves the DataNode; a page of at most
 * {@value #MAX_LIMIT} entries per call.
 */
public final class LogListing {
  static final int MAX_LIMIT = 100_000;

  private LogListing() {}

  /** The steps of the block stamped in {@code (afterHlc, toHlc]}, at most {@code limit} of them. */
  public static BlockLogResponseProto list(BlockStore store, BlockLogRequestProto request) throws FffsException {
    long blockId = request.getBlockId();
    // Read before the entries: a collection between the two reads can only make the listing more than complete.
    long completeFrom = store.logCompleteFromMicros(blockId);
    int limit = Math.max(1, Math.min(request.getLimit(), MAX_LIMIT));
    long after = request.getAfterHlc();
    long to = request.hasToHlc() && request.getToHlc() != 0 ? request.getToHlc() : Long.MAX_VALUE;
    BlockLogResponseProto.Builder answer = BlockLogResponseProto.newBuilder().setMore(false)
        .setCompleteFromMicros(completeFrom).setPageSize(store.pageSize());
    for (LogSteps.Step step : LogSteps.of(store.logEntries(blockId))) {
      LogEntry entry = step.entry();
      // Unsigned: packed HLCs are non-negative, Long.MAX_VALUE stands for no bound.
      if (Long.compareUnsigned(entry.hlc(), after) <= 0 || Long.compareUnsigned(entry.hlc(), to) > 0) {
        continue;
      }
      if (answer.getEntriesCount() == limit) {
        answer.setMore(true);
        break;
      }
      answer.addEntries(BlockLogEntryProto.newBuilder().setOp(op(entry)).setHlc(entry.hlc())
          .setUserTime(entry.userTime()).setOffset(entry.offset()).setLength(entry.length())
          .setLengthAfter(entry.lengthAfter()));
    }
    return answer.build();
  }

  private static BlockLogOpProto op(LogEntry entry) {
    switch (entry.op()) {
      case CREATE:
        return BlockLogOpProto.LOG_CREATE;
      case WRITE:
        return BlockLogOpProto.LOG_WRITE;
      case TRUNCATE:
        return BlockLogOpProto.LOG_TRUNCATE;
      default:
        return BlockLogOpProto.LOG_DELETE;
    }
  }
}
