package io.fffs.client.data;

import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.protocol.frame.FrameFormat;
import io.fffs.protocol.transport.DataChannel;
import io.fffs.protocol.transport.PacketBuffer;
import io.fffs.protocol.transport.ReadAnswer;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link DataChannel} for READs over one plain TCP connection that its user's thread serves itself: requests are
 * encoded into a send buffer and written on {@link #flush()}; {@link #await} reads answers off the socket until the
 * one awaited is in, each answer's payload straight into a direct buffer of its own (the kernel's copy is the only
 * one before the reader's checked copy out of it). Answers may come in any order (the DataNode serves requests on
 * several threads): one that arrives before its turn waits in its buffer. No event loop, no buffer pool, no pipeline
 * of handlers: a fresh client reading this way loads and compiles a fraction of what Netty's path needs.
 *
 * <p>The socket is non-blocking with a selector of its own so that every wait is bounded: no byte for the response
 * timeout condemns the channel (closed, every outstanding answer failed). Given back ({@link #release()}) with
 * answers still to come, it reads and drops them first, so the connection is reused clean. Writes are not carried.
 * Not thread-safe: one user at a time, as every {@link DataChannel}.
 */
final class PlainSocketChannel implements DataChannel {
  /**
   * Answer buffers kept between answers: a stream's two largest requests in flight and the answer being consumed;
   * once that many are kept, a larger one given back takes the smallest one's place (a stream's requests grow).
   */
  private static final int KEPT_BUFFERS = 3;
  private static final int BUFFER_ROUNDING = 64 << 10;
  private static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);

  private final PlainSocketReads owner;
  private final InetSocketAddress address;
  private final SocketChannel socket;
  private final Selector selector;
  private final SelectionKey key;
  private final long timeoutMillis;
  private final int maxFrameBytes;
  private ByteBuffer out = ByteBuffer.allocate(4 << 10);
  private final ByteBuffer lengths = ByteBuffer.allocate(FrameFormat.LENGTH_FIELD_BYTES
      + FrameFormat.HEADER_LENGTH_FIELD_BYTES);
  private byte[] header = new byte[512];
  private final Map<Long, CompletableFuture<ReadAnswer>> pending = new HashMap<>();
  private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
  private long nextCallId = 1;
  private IOException broken;

  private PlainSocketChannel(PlainSocketReads owner, InetSocketAddress address, SocketChannel socket,
      Selector selector, long timeoutMillis, int maxFrameBytes) throws IOException {
    this.owner = owner;
    this.address = address;
    this.socket = socket;
    this.selector = selector;
    this.key = socket.register(selector, SelectionKey.OP_READ);
    this.timeoutMillis = timeoutMillis;
    this.maxFrameBytes = maxFrameBytes;
  }

  /** A new connection to {@code address}, given back to {@code owner} on release. */
  static PlainSocketChannel connect(PlainSocketReads owner, InetSocketAddress address, int connectTimeoutMillis,
      long timeoutMillis, int maxFrameBytes) throws IOException {
    SocketChannel socket = SocketChannel.open();
    Selector selector = null;
    try {
      socket.socket().setTcpNoDelay(true);  // a lone request must not wait for the ack of the one before
      socket.socket().connect(address, connectTimeoutMillis);
      socket.configureBlocking(false);
      selector = Selector.open();
      return new PlainSocketChannel(owner, address, socket, selector, timeoutMillis, maxFrameBytes);
    } catch (IOException e) {
      socket.close();
      if (selector != null) {
        selector.close();
      }
      throw new IOException("cannot connect to DataNode " + address + ": " + e.getMessage(), e);
    }
  }

  InetSocketAddress address() {
    return address;
  }

  /** Whether a kept connection still looks open: nothing to read, no end of stream, nothing outstanding. */
  boolean usable() {
    if (broken != null || !pending.isEmpty()) {
      return false;
    }
    try {
      return socket.read(ByteBuffer.allocate(1)) == 0;
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public String peer() {
    return "DataNode " + address;
  }

  @Override
  public int maxPacket() {
    return Integer.MAX_VALUE;
  }

  @Override
  public int maxRead() {
    return Integer.MAX_VALUE;
  }

  @Override
  public boolean sendsEachWrite() {
    return false;
  }

  @Override
  public PacketBuffer allocate(int length) {
    throw new UnsupportedOperationException("a plain-socket channel carries reads only");
  }

  @Override
  public CompletableFuture<ResponseHeaderProto> write(RequestHeaderProto.Builder request, PacketBuffer payload,
      boolean flush) {
    throw new UnsupportedOperationException("a plain-socket channel carries reads only");
  }

  @Override
  public CompletableFuture<ReadAnswer> read(RequestHeaderProto.Builder request, int asked, boolean mayWait,
      boolean flush) throws IOException {
    CompletableFuture<ReadAnswer> answer = new CompletableFuture<>();
    if (broken != null) {
      answer.completeExceptionally(broken);
      return answer;
    }
    long callId = nextCallId++;
    RequestHeaderProto built = request.setCallId(callId).build();
    byte[] bytes = built.toByteArray();
    int size = bytes.length;
    int frame = FrameFormat.LENGTH_FIELD_BYTES + FrameFormat.HEADER_LENGTH_FIELD_BYTES + size;
    if (out.remaining() < frame) {
      ByteBuffer bigger = ByteBuffer.allocate(Math.max(out.capacity() * 2, out.position() + frame));
      out = bigger.put(out.flip());
    }
    out.putInt(FrameFormat.HEADER_LENGTH_FIELD_BYTES + size).putInt(size).put(bytes);
    pending.put(callId, answer);
    if (flush) {
      flush();
    }
    return answer;
  }

  @Override
  public void flush() {
    if (out.position() == 0 || broken != null) {
      return;
    }
    try {
      out.flip();
      while (out.hasRemaining()) {
        if (socket.write(out) == 0) {
          waitFor(SelectionKey.OP_WRITE);
        }
      }
      out.clear();
    } catch (java.io.InterruptedIOException e) {
      fail(e);  // an interrupt stays one for the caller, as it does while receiving
    } catch (IOException e) {
      fail(new IOException("cannot send to DataNode " + address + ": " + e.getMessage(), e));
    }
  }

  @Override
  public ReadAnswer await(CompletableFuture<ReadAnswer> answer) throws IOException {
    flush();
    while (!answer.isDone()) {
      if (broken != null) {
        throw broken;  // the answer is among those failed with the channel
      }
      receive();
    }
    try {
      return answer.join();
    } catch (java.util.concurrent.CompletionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof IOException ? (IOException) cause
          : new IOException("call to DataNode " + address + " failed: " + cause, cause);
    }
  }

  @Override
  public void abandon(CompletableFuture<ReadAnswer> answer) {
    answer.thenAccept(ReadAnswer::release);
  }

  /** Drops the answers still to come (so the connection goes back clean) and gives the channel to its owner. */
  @Override
  public void release() {
    if (broken == null && !pending.isEmpty()) {
      flush();
      List<CompletableFuture<ReadAnswer>> left = new ArrayList<>(pending.values());
      for (CompletableFuture<ReadAnswer> answer : left) {
        answer.thenAccept(ReadAnswer::release);
      }
      try {
        while (broken == null && !pending.isEmpty()) {
          receive();
        }
      } catch (IOException e) {
        // failed and closed: not kept
      }
    }
    owner.giveBack(this);
  }

  /** Reads one answer off the socket and completes its call; a failure condemns the channel and is thrown. */
  private void receive() throws IOException {
    try {
      lengths.clear();
      readFully(lengths);
      int frameLength = lengths.getInt(0);
      int headerLength = lengths.getInt(FrameFormat.LENGTH_FIELD_BYTES);
      if (frameLength < FrameFormat.HEADER_LENGTH_FIELD_BYTES || frameLength > maxFrameBytes || headerLength < 0
          || headerLength > frameLength - FrameFormat.HEADER_LENGTH_FIELD_BYTES) {
        throw new IOException("DataNode " + address + " sent a frame of " + Integer.toUnsignedString(frameLength)
            + " bytes with a header of " + Integer.toUnsignedString(headerLength) + " (at most " + maxFrameBytes
            + ")");
      }
      if (header.length < headerLength) {
        header = new byte[Math.max(headerLength, header.length * 2)];
      }
      readFully(ByteBuffer.wrap(header, 0, headerLength));
      ResponseHeaderProto response = ResponseHeaderProto.parser().parseFrom(header, 0, headerLength);
      int payloadLength = frameLength - FrameFormat.HEADER_LENGTH_FIELD_BYTES - headerLength;
      ByteBuffer payload = take(payloadLength);
      readFully(payload);
      payload.flip();
      CompletableFuture<ReadAnswer> call = pending.remove(response.getCallId());
      if (call == null) {
        giveBack(payload);
        throw new IOException("DataNode " + address + " answered call " + response.getCallId()
            + ", which is not outstanding");
      }
      call.complete(new Answer(response, payload));
    } catch (IOException e) {
      throw fail(e);
    }
  }

  /** Fills {@code b}, waiting at most the response timeout for each next byte. */
  private void readFully(ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      int n = socket.read(b);
      if (n < 0) {
        throw new EOFException("DataNode " + address + " closed the connection");
      }
      if (n == 0) {
        waitFor(SelectionKey.OP_READ);
      }
    }
  }

  /** Waits until the socket is ready for {@code op}, at most the response timeout. */
  private void waitFor(int op) throws IOException {
    key.interestOps(op);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (true) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      int ready = selector.select(Math.max(1, left));  // 0 would wait for ever
      selector.selectedKeys().clear();
      if (ready > 0) {
        return;
      }
      if (Thread.currentThread().isInterrupted()) {
        throw new java.io.InterruptedIOException("interrupted waiting for DataNode " + address);
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new IOException("DataNode " + address + " did not answer within " + timeoutMillis + " ms");
      }
    }
  }

  /** A buffer of at least {@code length} bytes' room, limited to {@code length}: a kept one, or a new one. */
  private ByteBuffer take(int length) {
    if (length == 0) {
      return EMPTY.duplicate();
    }
    ByteBuffer fit = null;
    for (ByteBuffer b : free) {
      if (b.capacity() >= length && (fit == null || b.capacity() < fit.capacity())) {
        fit = b;  // the smallest that fits: a larger one stays for a larger answer
      }
    }
    if (fit != null) {
      removeKept(fit);
      return fit.clear().limit(length);
    }
    int capacity = (length + BUFFER_ROUNDING - 1) / BUFFER_ROUNDING * BUFFER_ROUNDING;
    return ByteBuffer.allocateDirect(capacity).limit(length);
  }

  private void giveBack(ByteBuffer buffer) {
    if (buffer.capacity() == 0) {
      return;
    }
    if (free.size() >= KEPT_BUFFERS) {
      ByteBuffer smallest = null;
      for (ByteBuffer b : free) {
        if (smallest == null || b.capacity() < smallest.capacity()) {
          smallest = b;
        }
      }
      if (smallest.capacity() >= buffer.capacity()) {
        return;
      }
      removeKept(smallest);
    }
    free.addFirst(buffer);
  }

  /** Drops that very buffer from the kept ones (a buffer's {@code equals} compares contents). */
  private void removeKept(ByteBuffer buffer) {
    for (Iterator<ByteBuffer> it = free.iterator(); it.hasNext(); ) {
      if (it.next() == buffer) {
        it.remove();
        return;
      }
    }
  }

  /** Condemns the channel: closed, every outstanding call failed with {@code cause}, which is returned. */
  private IOException fail(IOException cause) {
    if (broken == null) {
      broken = cause;
    }
    close();
    List<CompletableFuture<ReadAnswer>> left = new ArrayList<>(pending.values());
    pending.clear();
    for (CompletableFuture<ReadAnswer> call : left) {
      call.completeExceptionally(cause);
    }
    return broken;
  }

  boolean broken() {
    return broken != null;
  }

  void close() {
    try {
      selector.close();
    } catch (IOException e) {
      // nothing to keep
    }
    try {
      socket.close();
    } catch (IOException e) {
      // nothing to keep
    }
  }

  /** An answer whose payload is a buffer of this channel, given back once on release. */
  private final class Answer implements ReadAnswer {
    private final ResponseHeaderProto header;
    private ByteBuffer payload;

    Answer(ResponseHeaderProto header, ByteBuffer payload) {
      this.header = header;
      this.payload = payload;
    }

    @Override
    public ResponseHeaderProto header() {
      return header;
    }

    @Override
    public ByteBuffer[] payload() {
      return new ByteBuffer[] {payload.duplicate()};
    }

    @Override
    public int length() {
      return payload.remaining();
    }

    @Override
    public void release() {
      ByteBuffer buffer = payload;
      if (buffer != null) {
        payload = null;
        giveBack(buffer);
      }
    }
  }
}
