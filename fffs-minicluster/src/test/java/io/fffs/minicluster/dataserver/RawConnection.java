package io.fffs.minicluster.dataserver;

import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

/** A blocking socket that speaks the frame layout by hand, to send what a well-behaved client never would. */
final class RawConnection implements AutoCloseable {
  private final Socket socket;
  private final DataOutputStream out;
  private final DataInputStream in;

  RawConnection(InetSocketAddress address) throws IOException {
    socket = new Socket(address.getAddress(), address.getPort());
    socket.setSoTimeout(10_000);
    out = new DataOutputStream(socket.getOutputStream());
    in = new DataInputStream(socket.getInputStream());
  }

  void send(RequestHeaderProto header, byte[] payload) throws IOException {
    byte[] h = header.toByteArray();
    out.writeInt(4 + h.length + payload.length);
    out.writeInt(h.length);
    out.write(h);
    out.write(payload);
    out.flush();
  }

  void sendRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  ResponseHeaderProto receive() throws IOException {
    int frameLength = in.readInt();
    int headerLength = in.readInt();
    byte[] header = new byte[headerLength];
    in.readFully(header);
    in.skipNBytes(frameLength - 4 - headerLength);
    return ResponseHeaderProto.parseFrom(header);
  }

  /** Whether the server closed the connection (end of stream) within the socket timeout. */
  boolean closedByServer() throws IOException {
    try {
      while (in.read() >= 0) {
        // drain anything sent before the close
      }
      return true;
    } catch (EOFException e) {
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return e.getMessage() != null && e.getMessage().contains("reset");
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
