package io.fffs.namenode.rpc;

import io.fffs.common.error.FffsException;
import io.fffs.common.ipc.RemoteErrors;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.namenode.fs.DeferredDurability;
import io.fffs.namenode.fs.Namesystem;
import io.fffs.namenode.permission.Caller;
import java.io.IOException;
import org.apache.hadoop.ipc.ProtobufRpcEngine2;
import org.apache.hadoop.ipc.ProtobufRpcEngineCallback2;
import org.apache.hadoop.thirdparty.protobuf.Message;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every NameNode RPC does around its work: merge the caller's HLC (refusing a skewed one), find out who is
 * calling, and turn failures into errors that reach the client with their code. With a {@link Namesystem}, a call
 * that changes the namespace does not hold its IPC handler while its edit is synced: the handler builds the answer
 * and hands it to Hadoop IPC as a deferred response, sent by the edit log's notifier once the edit is on disk
 * ({@link DeferredDurability}), so the handler serves the next call meanwhile (HDFS's asynchronous edit logging
 * does the same). A change is still acknowledged only once durable.
 */
final class ServedCall {
  private static final Logger LOG = LoggerFactory.getLogger(ServedCall.class);

  interface Work<T> {
    T run(Caller caller) throws IOException;
  }

  private final HybridLogicalClock clock;
  /** Where changes become durable, for deferred answers; null: every change waits on its handler. */
  private final Namesystem durability;

  ServedCall(HybridLogicalClock clock) {
    this(clock, null);
  }

  ServedCall(HybridLogicalClock clock, Namesystem durability) {
    this.clock = clock;
    this.durability = durability;
  }

  /**
   * A call that may change the namespace: a caller whose HLC is too far ahead is refused. Its answer goes out once
   * its changes are durable; with a namesystem, as a deferred response (null is returned to Hadoop IPC then).
   */
  <T> T serve(HlcProto callerHlc, Work<T> work) throws ServiceException {
    if (durability == null) {
      return run(callerHlc, true, work);
    }
    T answer = null;
    ServiceException failure = null;
    long txid;
    DeferredDurability.begin();
    try {
      answer = run(callerHlc, true, work);
    } catch (ServiceException e) {
      failure = e;
    } finally {
      txid = DeferredDurability.end();
    }
    if (failure != null) {
      await(txid); // a change made before the failure is durable before the error goes out
      throw failure;
    }
    if (txid == 0 || durability.isDurable(txid) || !(answer instanceof Message)) {
      await(txid);
      return answer;
    }
    Message message = (Message) answer;
    ProtobufRpcEngineCallback2 deferred = ProtobufRpcEngine2.Server.registerForDeferredResponse2();
    durability.whenDurable(txid, () -> deferred.setResponse(message),
        error -> deferred.error(RemoteErrors.toServiceException(error).getCause()));
    return null;
  }

  /** Waits until {@code txid} (0: nothing) is durable. */
  private void await(long txid) throws ServiceException {
    if (txid == 0) {
      return;
    }
    try {
      durability.awaitDurable(txid);
    } catch (IOException e) {
      throw RemoteErrors.toServiceException(e);
    }
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
