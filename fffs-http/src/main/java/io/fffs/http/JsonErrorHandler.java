package io.fffs.http;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.ErrorHandler;

/**
 * The errors Jetty raises before a request reaches the servlet — a malformed request line, headers too large, an
 * unknown URL, a bad method — as WebHDFS {@code RemoteException} JSON rather than an HTML page, without stacks.
 */
final class JsonErrorHandler extends ErrorHandler {
  JsonErrorHandler() {
    setShowStacks(false);
    setShowServlet(false);
  }

  @Override
  protected void generateAcceptableResponse(Request baseRequest, HttpServletRequest request,
      HttpServletResponse response, int code, String message) throws IOException {
    baseRequest.setHandled(true);
    byte[] body = RemoteError.forStatus(code, message).toJson().getBytes(StandardCharsets.UTF_8);
    response.setContentType("application/json");
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  @Override
  public ByteBuffer badMessageError(int status, String reason, HttpFields fields) {
    fields.put(new HttpField(HttpHeader.CONTENT_TYPE, "application/json"));
    return ByteBuffer.wrap(RemoteError.forStatus(status, reason).toJson().getBytes(StandardCharsets.UTF_8));
  }
}
