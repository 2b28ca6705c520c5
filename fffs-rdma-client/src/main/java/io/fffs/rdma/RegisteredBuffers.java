package io.fffs.rdma;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.openucx.jucx.ucp.UcpMemory;

/**
 * A fixed set of equal buffers in one direct allocation, registered with UCX once (registration is expensive;
 * RDMA NICs pin the pages): a client's packet slots and read chunks, a DataNode's staging buffers. A buffer is
 * taken, used for one operation and given back. The memory is touched once at creation so that the first
 * transfers do not pay for first-touch page faults. Thread-safe.
 */
public final class RegisteredBuffers {
  /** One buffer: its bytes, and where it is for UCX. */
  public record Slot(int index, ByteBuffer bytes, long address) {}

  private final ByteBuffer memory;
  private final UcpMemory registration;
  private final ByteBuffer rkey;
  private final int slotSize;
  private final ArrayBlockingQueue<Slot> free;
  private final int count;

  public RegisteredBuffers(UcxWorkerLoop loop, int count, int slotSize) throws IOException {
    this.slotSize = slotSize;
    this.memory = ByteBuffer.allocateDirect(Math.multiplyExact(count, slotSize));
    for (int at = 0; at < memory.capacity(); at += 4096) {
      memory.put(at, (byte) 0);
    }
    this.registration = loop.register(memory);
    ByteBuffer packed = registration.getRemoteKeyBuffer();
    this.rkey = ByteBuffer.allocate(packed.remaining());
    rkey.put(packed).flip();
    this.count = count;
    this.free = new ArrayBlockingQueue<>(count);
    for (int i = 0; i < count; i++) {
      free.add(new Slot(i, memory.slice(i * slotSize, slotSize), registration.getAddress() + (long) i * slotSize));
    }
  }

  public int slotSize() {
    return slotSize;
  }

  /** The packed remote key of all the buffers (a peer unpacks it to reach them). */
  public ByteBuffer rkey() {
    return rkey.asReadOnlyBuffer();
  }

  /** A free buffer, or null. */
  public Slot tryTake() {
    return free.poll();
  }

  /** Waits up to {@code timeoutMillis} for a free buffer. */
  public Slot take(long timeoutMillis, String forWhat) throws IOException {
    try {
      Slot slot = free.poll(timeoutMillis, TimeUnit.MILLISECONDS);
      if (slot == null) {
        throw new IOException("no registered UCX buffer became free within " + timeoutMillis + " ms for "
            + forWhat);
      }
      return slot;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted waiting for a registered UCX buffer for " + forWhat);
    }
  }

  /** How many buffers are free now. */
  public int free() {
    return free.size();
  }

  /** How many buffers there are. */
  public int count() {
    return count;
  }

  public void give(Slot slot) {
    free.add(slot);
  }

  /** On the worker loop, when nothing uses the buffers any more. */
  public void deregister() {
    registration.deregister();
  }
}
