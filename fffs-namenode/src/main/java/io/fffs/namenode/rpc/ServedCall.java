package io.fffs.namenode.rpc;

import io.fffs.common.error.FffsException;
import io.fffs.common.ipc.RemoteErrors;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.namenode.permission.Caller;
import java.io.IOException;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every NameNode RPC does around its work: merge the caller's HLC (refusing a skewed one), find out who is
 * calling, and turn failures into errors that reach the client with their code.
 */
final class ServedCall {
  private static final Logger LOG = LoggerFactory.getLogger(ServedCall.class);

  interface Work<T> {
    T run(Caller caller) throws IOException;
  }

  private final HybridLogicalClock clock;

  ServedCall(HybridLogicalClock clock) {
    this.clock = clock;
  }

  /** A call that may change the namespace: a caller whose HLC is too far ahead is refused. */
  <T> T serve(HlcProto callerHlc, Work<T> work) throws ServiceException {
    return run(callerHlc, true, work);
  }

  /** A query: a caller's HLC too far ahead is ignored rather than refused (reads need no causal merge). */
  <T> T query(HlcProto callerHlc, Work<T> work) throws ServiceException {
    return run(callerHlc, false, work);
  }

  private <T> T run(HlcProto callerHlc, boolean changes, Work<T> work) throws ServiceException {
    try {
      if (changes) {
        clock.merge(HlcTimestamp.fromProto(callerHlc));
      } else {
        clock.mergeIfWithinOffset(HlcTimestamp.fromProto(callerHlc));
      }
      return work.run(Caller.current());
    } catch (FffsException e) {
      throw RemoteErrors.toServiceException(e);
    } catch (IOException | RuntimeException e) {
      LOG.error("Unexpected failure serving an RPC", e);
      throw RemoteErrors.toServiceException(e);
    }
  }

  /** The HLC every response carries. */
  HlcProto now() {
    return clock.now().toProto();
  }
}
