package io.fffs.namenode.rpc;

import io.fffs.common.error.FffsException;
import io.fffs.common.ipc.RemoteErrors;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.fs.Leadership;
import io.fffs.namenode.fs.Logged;
import io.fffs.namenode.fs.RetryAnswers;
import io.fffs.namenode.permission.Caller;
import java.io.IOException;
import org.apache.hadoop.ipc.ProtobufRpcEngine2;
import org.apache.hadoop.ipc.ProtobufRpcEngineCallback2;
import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.thirdparty.protobuf.Message;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every NameNode RPC does around its work: merge the caller's HLC (refusing a skewed one), find out who is
 * calling, and turn failures into errors that reach the client with their code. A call that changes the namespace
 * does not hold its IPC handler while its edit is synced: the handler builds the answer and hands it to Hadoop IPC
 * as a deferred response, sent by the edit log's notifier once the change's {@link Logged} txid is on disk, so the
 * handler serves the next call meanwhile (HDFS's asynchronous edit logging does the same). A change is still
 * acknowledged only once durable.
 */
final class ServedCall {
  private static final Logger LOG = LoggerFactory.getLogger(ServedCall.class);

  interface Work<T> {
    T run(Caller caller) throws IOException;
  }

  private final HybridLogicalClock clock;
  private final RetryAnswers retryAnswers;
  /** Null where every NameNode answers (a single NameNode; the admin protocol); else only the leader serves. */
  private final Leadership leadership;

  ServedCall(HybridLogicalClock clock, RetryAnswers retryAnswers, Leadership leadership) {
    this.clock = clock;
    this.retryAnswers = retryAnswers;
    this.leadership = leadership;
  }

  /** A call that changes no namespace state; a caller whose HLC is too far ahead is refused, as for a change. */
  <T> T serve(HlcProto callerHlc, Work<T> work) throws ServiceException {
    return run(callerHlc, true, work);
  }

  /**
   * A call that changes the namespace: a caller whose HLC is too far ahead is refused. Its answer goes out once its
   * change is durable: at once if it is already, else as a deferred response (null is returned to Hadoop IPC then).
   * A failure after the change was made goes out once the change is durable ({@link Logged#map}). A retry of a call
   * already answered (same IPC client and call id) gets the first answer and changes nothing.
   */
  <T extends Message> T change(HlcProto callerHlc, Work<Logged<T>> work) throws ServiceException {
    return change(callerHlc, work, null);
  }

  /**
   * {@link #change(HlcProto, Work)} for a call that must not be made twice: a retry of it that reaches this NameNode
   * after another made it (a failover between the change and its answer) gets {@code answerAgain}'s answer, built
   * from the namespace as the change left it, instead of the change being made again.
   */
  @SuppressWarnings("unchecked")
  <T extends Message> T change(HlcProto callerHlc, Work<Logged<T>> work, Work<T> answerAgain)
      throws ServiceException {
    RetryAnswers.Attempt attempt = retryAnswers.begin(Server.getClientId(), Server.getCallId());
    if (attempt.answered()) {
      if (!attempt.answerElsewhere()) {
        return (T) attempt.firstAnswer();
      }
      if (answerAgain != null) {
        return run(callerHlc, false, answerAgain);
      }
    }
    Logged<T> answer;
    try {
      answer = run(callerHlc, true, work);
    } catch (ServiceException | RuntimeException e) {
      attempt.failed();
      throw e;
    }
    if (answer.isDurable()) {
      try {
        T response = answer.await();
        attempt.succeeded(response);
        return response;
      } catch (IOException e) {
        attempt.failed();
        throw RemoteErrors.toServiceException(e);
      }
    }
    ProtobufRpcEngineCallback2 deferred = ProtobufRpcEngine2.Server.registerForDeferredResponse2();
    answer.whenDurable(response -> {
      attempt.succeeded(response);
      deferred.setResponse(response);
    }, error -> {
      attempt.failed();
      deferred.error(RemoteErrors.toServiceException(error).getCause());
    });
    return null;
  }

  /** A query: a caller's HLC too far ahead is ignored rather than refused (reads need no causal merge). */
  <T> T query(HlcProto callerHlc, Work<T> work) throws ServiceException {
    return run(callerHlc, false, null, work);
  }

  /**
   * A query of the namespace as of {@code time}: as {@link #query}, but a follower answers it too when its applied
   * log covers {@code time} ({@link Leadership#checkReadable}).
   */
  <T> T queryAt(HlcProto callerHlc, TimeSpec time, Work<T> work) throws ServiceException {
    return run(callerHlc, false, time, work);
  }

  private <T> T run(HlcProto callerHlc, boolean changes, Work<T> work) throws ServiceException {
    return run(callerHlc, changes, null, work);
  }

  private <T> T run(HlcProto callerHlc, boolean changes, TimeSpec time, Work<T> work) throws ServiceException {
    try {
      if (leadership != null) {
        // Followers may lag the leader, and a leader cut off may lag a new one: a latest-state answer from either
        // could be older than one already given.
        if (changes) {
          leadership.checkLeader("a change");
        } else if (time == null) {
          leadership.checkLatest("a query");
        } else {
          leadership.checkReadable(time, "a query");
        }
      }
      if (changes) {
        clock.merge(HlcTimestamp.fromWire(callerHlc));
      } else {
        clock.mergeIfWithinOffset(HlcTimestamp.fromWire(callerHlc));
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
