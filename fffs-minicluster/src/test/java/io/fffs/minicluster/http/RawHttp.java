package io.fffs.minicluster.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** Requests written byte for byte on a fresh socket, for inputs no HTTP client library would send. */
final class RawHttp {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A response: status, headers as text, body. */
  static final class Response {
    final int status;
    final String headers;
    final byte[] body;

    Response(int status, String headers, byte[] body) {
      this.status = status;
      this.headers = headers;
      this.body = body;
    }

    String body() {
      return new String(body, StandardCharsets.UTF_8);
    }

    /** The body as JSON, or null if it is not JSON. */
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        return null;
      }
    }

    boolean hasHeader(String name, String valuePrefix) {
      for (String line : headers.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)
            && line.substring(colon + 1).trim().toLowerCase(Locale.ROOT).startsWith(valuePrefix)) {
          return true;
        }
      }
      return false;
    }

    @Override
    public String toString() {
      return status + " " + body();
    }
  }

  private RawHttp() {}

  /** Sends {@code request} (the server closes after answering it) and reads the whole response. */
  static Response exchange(InetSocketAddress server, byte[] request) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(server, 10_000);
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      try {
        out.write(request);
        out.flush();
      } catch (IOException e) {
        // The server may answer and close before reading all of an oversized request; the answer is still there.
      }
      socket.shutdownOutput();
      return parse(readAll(socket.getInputStream()));
    }
  }

  static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    try {
      for (int n; (n = in.read(buffer)) >= 0; ) {
        all.write(buffer, 0, n);
      }
    } catch (java.net.SocketException e) {
      // A reset after the answer (the server closed with unread request bytes) ends the response too.
    }
    return all.toByteArray();
  }

  static Response parse(byte[] raw) {
    String text = new String(raw, StandardCharsets.ISO_8859_1);
    int end = text.indexOf("\r\n\r\n");
    if (!text.startsWith("HTTP/1.1 ") || end < 0) {
      return new Response(-1, text, raw);
    }
    int status = Integer.parseInt(text.substring(9, 12));
    byte[] body = java.util.Arrays.copyOfRange(raw, end + 4, raw.length);
    String headers = text.substring(0, end);
    if (headers.toLowerCase(Locale.ROOT).contains("transfer-encoding: chunked")) {
      body = dechunk(body);
    }
    return new Response(status, headers, body);
  }

  private static byte[] dechunk(byte[] chunked) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String text = new String(chunked, StandardCharsets.ISO_8859_1);
    int at = 0;
    while (at < text.length()) {
      int lineEnd = text.indexOf("\r\n", at);
      int size = Integer.parseInt(text.substring(at, lineEnd).trim(), 16);
      if (size == 0) {
        break;
      }
      out.write(chunked, lineEnd + 2, size);
      at = lineEnd + 2 + size + 2;
    }
    return out.toByteArray();
  }
}
