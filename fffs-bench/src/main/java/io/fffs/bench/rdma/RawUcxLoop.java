package io.fffs.bench.rdma;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * The raw jucx baseline: the process layout of FFFS over UCX without FFFS. Two UCX contexts and workers in this
 * JVM — a "client" whose worker a thread of its own progresses (sleeping in {@code ucp_worker_wait} when idle, as
 * the FFFS client's worker loop does; UCX's tcp transport needs the target of a GET to progress) and a "server"
 * driven by the calling thread, with an endpoint to the client's worker (peer error handling on, as FFFS asks) and
 * the client's registered buffer's remote key. Like the DataNode, the server initiates every operation:
 * <ul>
 *   <li>write direction: GET {@code size} bytes from the client's registered buffer into the server's;</li>
 *   <li>read direction: PUT {@code size} bytes from the server's registered buffer into the client's, then flush
 *       the endpoint (FFFS answers a read only after its flush completed: the bytes are in the client's memory).</li>
 * </ul>
 * At most {@code depth} operations are in flight (depth 1: issue, wait, repeat — one round trip per transfer as an
 * FFFS read does). Each operation uses slot {@code i % depth} of the two buffers. After the loop the destination
 * slots are compared with the source slots byte for byte.
 */
final class RawUcxLoop implements AutoCloseable {
  /** GB/s (10^9 bytes per second) and process CPU nanoseconds of each direction; whether the bytes arrived intact. */
  record Result(double getGbps, double putGbps, long getCpuNanos, long putCpuNanos, boolean verified) {}

  /** The PUT itself needs no callback: its flush completes the operation. */
  private static final UcxCallback NOTHING = new UcxCallback() { };

  private final UcpContext clientContext;
  private final UcpWorker clientWorker;
  private final UcpContext serverContext;
  private final UcpWorker serverWorker;
  private final ByteBuffer clientBytes;
  private final ByteBuffer serverBytes;
  private final UcpMemory clientMemory;
  private final UcpMemory serverMemory;
  private final UcpEndpoint endpoint;
  private final UcpRemoteKey clientKey;
  private final Thread clientThread;
  private volatile boolean running = true;
  private int inFlight;
  private String failure;

  /** Registers {@code slots} slots of {@code slotSize} bytes on each side and connects the server to the client. */
  RawUcxLoop(int slotSize, int slots) throws IOException {
    UcpParams params = new UcpParams().requestRmaFeature().requestWakeupFeature();
    clientContext = new UcpContext(params);
    clientWorker = clientContext.newWorker(new UcpWorkerParams());
    serverContext = new UcpContext(params);
    serverWorker = serverContext.newWorker(new UcpWorkerParams());
    clientBytes = touched(ByteBuffer.allocateDirect(slotSize * slots));
    serverBytes = touched(ByteBuffer.allocateDirect(slotSize * slots));
    clientMemory = clientContext.registerMemory(clientBytes);
    serverMemory = serverContext.registerMemory(serverBytes);
    ByteBuffer clientAddress = copyDirect(clientWorker.getAddress());
    ByteBuffer packedKey = copyDirect(clientMemory.getRemoteKeyBuffer());
    clientThread = new Thread(this::progressClient, "raw-ucx-client");
    clientThread.setDaemon(true);
    clientThread.start();
    endpoint = serverWorker.newEndpoint(new UcpEndpointParams().setUcpAddress(clientAddress)
        .setPeerErrorHandlingMode().setName("raw-ucx-server")
        .setErrorHandler((ep, status, message) -> failure = message + " (status " + status + ")"));
    clientKey = endpoint.unpackRemoteKey(packedKey);
  }

  /**
   * Moves {@code total} bytes in {@code size}-byte GETs, then the same in PUTs, at most {@code depth} in flight
   * ({@code depth * size} must fit the slots given at construction).
   */
  Result run(int size, long total, int depth) throws Exception {
    if ((long) size * depth > clientBytes.capacity()) {
      throw new IllegalArgumentException(depth + " slots of " + size + " bytes exceed the registered buffers");
    }
    long ops = Math.max(1, total / size);
    fill(clientBytes, size * depth, size);
    long c0 = RdmaCase.cpuNanos();
    double get = loop(size, ops, depth, false);
    long getCpu = RdmaCase.cpuNanos() - c0;
    boolean getIntact = same(size * depth);
    fill(serverBytes, size * depth, size + 1);
    long c1 = RdmaCase.cpuNanos();
    double put = loop(size, ops, depth, true);
    long putCpu = RdmaCase.cpuNanos() - c1;
    boolean putIntact = same(size * depth);
    // CPU per byte is reported over the requested bytes; ops * size can fall short of them by under one size
    return new Result(get, put, getCpu, putCpu, getIntact && putIntact);
  }

  private double loop(int size, long ops, int depth, boolean put) throws Exception {
    long start = System.nanoTime();
    long issued = 0;
    long[] done = {0};
    while (done[0] < ops) {
      while (inFlight < depth && issued < ops) {
        long offset = (issued % depth) * (long) size;
        issue(put, offset, size, done);
        issued++;
      }
      if (failure != null) {
        throw new IOException("raw UCX loop: the endpoint failed: " + failure);
      }
      serverWorker.progress();
    }
    return ops * (double) size / (System.nanoTime() - start);
  }

  private void issue(boolean put, long offset, int size, long[] done) {
    inFlight++;
    UcxCallback finished = new UcxCallback() {
      private boolean counted;

      @Override
      public void onSuccess(UcpRequest request) {
        if (!counted) {
          counted = true;
          inFlight--;
          done[0]++;
        }
      }

      @Override
      public void onError(int status, String message) {
        failure = message + " (status " + status + ")";
      }
    };
    long local = serverMemory.getAddress() + offset;
    long remote = clientMemory.getAddress() + offset;
    UcpRequest request;
    if (put) {
      endpoint.putNonBlocking(local, size, remote, clientKey, NOTHING);
      request = endpoint.flushNonBlocking(finished);
    } else {
      request = endpoint.getNonBlocking(remote, clientKey, local, size, finished);
    }
    if (request != null && request.isCompleted()) {
      finished.onSuccess(request); // an operation that completed at once may not call back
    }
  }

  private void progressClient() {
    while (running) {
      try {
        if (clientWorker.progress() == 0 && running) {
          clientWorker.waitForEvents();
        }
      } catch (Exception e) {
        failure = "client worker: " + e;
        return;
      }
    }
  }

  private static void fill(ByteBuffer buffer, int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    buffer.duplicate().clear().put(bytes);
  }

  private boolean same(int length) {
    return clientBytes.duplicate().clear().limit(length).equals(serverBytes.duplicate().clear().limit(length));
  }

  private static ByteBuffer touched(ByteBuffer buffer) {
    for (int at = 0; at < buffer.capacity(); at += 4096) {
      buffer.put(at, (byte) 1);
    }
    return buffer;
  }

  private static ByteBuffer copyDirect(ByteBuffer source) {
    ByteBuffer copy = ByteBuffer.allocateDirect(source.remaining());
    copy.put(source.duplicate()).flip();
    return copy;
  }

  @Override
  public void close() {
    clientKey.close();
    UcpRequest closing = endpoint.closeNonBlockingForce();
    for (int i = 0; i < 1000 && closing != null && !closing.isCompleted(); i++) {
      try {
        serverWorker.progress();
      } catch (Exception e) {
        break;
      }
    }
    running = false;
    clientWorker.signal();
    try {
      clientThread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // close the rest anyway: the thread is a daemon
    }
    serverMemory.deregister();
    clientMemory.deregister();
    serverWorker.close();
    serverContext.close();
    clientWorker.close();
    clientContext.close();
  }
}
