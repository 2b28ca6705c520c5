package io.fffs.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import javax.servlet.http.HttpServletResponse;

/** Writing JSON answers. */
final class Responses {
  private Responses() {}

  static void json(HttpServletResponse response, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.setContentType("application/json");
    response.setContentLength(bytes.length);
    response.getOutputStream().write(bytes);
  }

  static void error(HttpServletResponse response, RemoteError error) throws IOException {
    response.resetBuffer();
    json(response, error.status, error.toJson());
  }
}
