package io.fffs.rdma.client;

import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.protocol.frame.FrameFormat;
import io.fffs.rdma.SideChannelFormat.Descriptor;
import io.fffs.rdma.SideChannelFormat;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client's side channel to one DataNode's UCX server ({@link SideChannelFormat}), shared by all of the client's
 * writers and readers of that DataNode: requests from any thread (each frame is written whole under a lock), and
 * one reader thread that completes each request's future by its callId. The hello is exchanged in the constructor;
 * a refused hello is a {@link Refused}. Once the connection fails, every pending and later request fails.
 */
final class SideChannel implements Closeable {
  /** The DataNode does not agree to UCX with this client (the reason is the message). */
  static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  private final InetSocketAddress address;
  private final Socket socket;
  private final DataOutputStream out;
  private final DataInputStream in;
  private final int maxFrame;
  private final Map<Long, CompletableFuture<ResponseHeaderProto>> pending = new ConcurrentHashMap<>();
  private final AtomicLong nextCallId = new AtomicLong(1);
  private final Thread reader;
  private volatile IOException failure;

  SideChannel(InetSocketAddress address, ByteBuffer workerAddress, int connectTimeoutMillis, int maxFrame)
      throws IOException {
    this.address = address;
    this.maxFrame = maxFrame;
    this.socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.connect(address, connectTimeoutMillis);
      socket.setSoTimeout(connectTimeoutMillis);
      out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 16 * 1024));
      in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 16 * 1024));
      ByteBuffer hello = SideChannelFormat.clientHello(workerAddress);
      out.write(hello.array(), 0, hello.limit());
      out.flush();
      readHello();
      socket.setSoTimeout(0);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    this.reader = new Thread(this::readResponses, "fffs-ucx-side-" + address);
    reader.setDaemon(true);
    reader.start();
  }

  private void readHello() throws IOException {
    int magic = in.readInt();
    short version = in.readShort();
    if (magic != SideChannelFormat.MAGIC || version != SideChannelFormat.VERSION) {
      throw new IOException(address + " is not a UCX side channel (magic " + Integer.toHexString(magic) + ")");
    }
    byte status = in.readByte();
    int length = in.readInt();
    if (length < 0 || length > 64 * 1024) {
      throw new IOException("malformed hello from " + address);
    }
    byte[] message = new byte[length];
    in.readFully(message);
    if (status != SideChannelFormat.ACCEPTED) {
      throw new Refused(new String(message, StandardCharsets.UTF_8));
    }
  }

  InetSocketAddress address() {
    return address;
  }

  boolean usable() {
    return failure == null;
  }

  /**
   * Sends a request (its callId is set here) with the descriptor as payload; the future gets its response. Without
   * {@code flush} the frame may wait in the send buffer for a later {@link #flush()} or flushing send.
   */
  CompletableFuture<ResponseHeaderProto> send(RequestHeaderProto.Builder request, Descriptor where,
      boolean flush) {
    long callId = nextCallId.getAndIncrement();
    CompletableFuture<ResponseHeaderProto> response = new CompletableFuture<>();
    pending.put(callId, response);
    RequestHeaderProto header = request.setCallId(callId).build();
    byte[] headerBytes = header.toByteArray();
    ByteBuffer descriptor = ByteBuffer.allocate(where.encodedLength());
    where.encode(descriptor);
    try {
      synchronized (out) {
        IOException failed = failure;
        if (failed != null) {
          throw failed;
        }
        out.writeInt(FrameFormat.HEADER_LENGTH_FIELD_BYTES + headerBytes.length + descriptor.capacity());
        out.writeInt(headerBytes.length);
        out.write(headerBytes);
        out.write(descriptor.array());
        if (flush) {
          out.flush();
        }
      }
    } catch (IOException e) {
      fail(e);
    }
    return response;
  }

  /** Sends what is buffered. */
  void flush() {
    try {
      synchronized (out) {
        if (failure == null) {
          out.flush();
        }
      }
    } catch (IOException e) {
      fail(e);
    }
  }

  private void readResponses() {
    try {
      while (true) {
        int frameLength = in.readInt();
        int headerLength = in.readInt();
        if (frameLength < 4 || frameLength > maxFrame || headerLength < 0 || headerLength > frameLength - 4) {
          throw new IOException("malformed frame from " + address + " (length " + frameLength + ", header "
              + headerLength + ")");
        }
        byte[] header = new byte[headerLength];
        in.readFully(header);
        in.skipNBytes(frameLength - 4 - headerLength);
        ResponseHeaderProto response = ResponseHeaderProto.parseFrom(header);
        CompletableFuture<ResponseHeaderProto> waiting = pending.remove(response.getCallId());
        if (waiting != null) {
          waiting.complete(response);
        }
      }
    } catch (IOException e) {
      fail(failure != null ? failure : new IOException("the UCX side channel to " + address + " failed: " + e, e));
    }
  }

  private void fail(IOException cause) {
    if (failure == null) {
      failure = cause;
    }
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing anyway
    }
    for (Long callId : pending.keySet()) {
      CompletableFuture<ResponseHeaderProto> waiting = pending.remove(callId);
      if (waiting != null) {
        waiting.completeExceptionally(failure);
      }
    }
  }

  @Override
  public void close() {
    fail(new IOException("the UCX side channel to " + address + " is closed"));
  }
}
