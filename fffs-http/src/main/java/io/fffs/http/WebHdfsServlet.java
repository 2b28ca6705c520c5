package io.fffs.http;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /webhdfs/v1/<path>?op=...}: parses and checks the request, then answers it — metadata with JSON, the
 * first step of a data op with a {@code 307} (or, with {@code noredirect=true}, the {@code Location} as JSON), the
 * second step with the bytes. Every failure is a {@code RemoteException} JSON body with WebHDFS's status codes.
 */
final class WebHdfsServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(WebHdfsServlet.class);

  private final transient UserFileSystems users;
  private final transient GatewaySecurity security;
  private final transient DelegationOps delegation;
  private final transient MetadataOps metadata;
  private final transient DataOps data;
  private final transient Redirects redirects;
  private final String staticUser;
  private final int maxMetadataBody;

  WebHdfsServlet(UserFileSystems users, GatewaySecurity security, DelegationOps delegation, MetadataOps metadata,
      DataOps data, Redirects redirects, String staticUser, int maxMetadataBody) {
    this.users = users;
    this.security = security;
    this.delegation = delegation;
    this.metadata = metadata;
    this.data = data;
    this.redirects = redirects;
    this.staticUser = staticUser;
    this.maxMetadataBody = maxMetadataBody;
  }

  @Override
  protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
    response.setHeader("Cache-Control", "no-cache");
    if ("OPTIONS".equals(request.getMethod())) {
      // What SPNEGO clients (Hadoop's KerberosAuthenticator) authenticate with before the real request.
      response.setHeader("Allow", "GET, PUT, POST, DELETE, OPTIONS");
      response.setStatus(HttpServletResponse.SC_OK);
      response.setContentLength(0);
      return;
    }
    try {
      serve(request, response);
    } catch (Exception e) {
      RemoteError error = RemoteError.of(e);
      if (error == null) {
        LOG.error("serving {} {}", request.getMethod(), Printable.of(request.getRequestURI(), 300), e);
        error = RemoteError.internal();
      } else if (error.status >= 500) {
        LOG.warn("serving {} {}: {}", request.getMethod(), Printable.of(request.getRequestURI(), 300), e.toString());
      }
      if (response.isCommitted()) {
        // Part of a body is out: only cutting the connection tells the client the body is incomplete.
        throw new IOException("failed after the response was committed: " + error.message, e);
      }
      Responses.error(response, error);
    }
  }

  private void serve(HttpServletRequest request, HttpServletResponse response) throws IOException {
    Map<String, String> parameters = UrlText.parameters(request.getQueryString());
    WebHdfsOp op = WebHdfsOp.parse(parameters.get("op"), request.getMethod());
    if (op.unsupported != null) {
      throw new FffsException(ErrorCode.UNSUPPORTED, op + ": " + op.unsupported);
    }
    RequestPath path = RequestPath.parse(request.getRequestURI(), parameters.get("at"));
    String[] identity = security.enabled ? security.identify(request, parameters, null)
        : security.identify(request, parameters, UserFileSystems.checkUserName(
            parameters.getOrDefault("user.name", staticUser).isEmpty() ? staticUser
                : parameters.getOrDefault("user.name", staticUser)));
    String user = identity[1];
    String doAs = parameters.get("doas");
    if (doAs != null && !doAs.isEmpty() && !doAs.equals(user)) {
      throw new FffsException(ErrorCode.ACCESS_DENIED, "this gateway does not act for proxy users (doas="
          + Printable.of(doAs, 64) + ")");
    }
    Call call = new Call(op, path, user, parameters);
    if (op.kind == WebHdfsOp.Kind.WRITE) {
      path.requirePresent(op.name().toLowerCase(java.util.Locale.ROOT));
    }
    if (!op.takesBody() || !call.isRedirected()) {
      refuseLargeBody(request, op);
    }
    try (UserFileSystems.Entry client = users.acquire(identity[0])) {
      if (DelegationOps.handles(op)) {
        String body = delegation.serve(call, client);
        if (body == null) {
          response.setStatus(HttpServletResponse.SC_OK);
          response.setContentLength(0);
        } else {
          Responses.json(response, HttpServletResponse.SC_OK, body);
        }
      } else if (op.redirected && !call.isRedirected()) {
        String location = Reconnects.retryOnce(() -> redirects.locationFor(call, client.fs, self(request)));
        if (call.bool("noredirect", false)) {
          Responses.json(response, HttpServletResponse.SC_OK, WebHdfsJson.location(location));
        } else {
          response.setStatus(HttpServletResponse.SC_TEMPORARY_REDIRECT);
          response.setHeader("Location", location);
          response.setContentType("application/json");
          response.setContentLength(0);
        }
      } else if (op.redirected) {
        data.serve(call, client.fs, request, response);
      } else {
        String body = Reconnects.retryOnce(() -> metadata.serve(call, client.fs));
        if (body == null) {
          response.setStatus(HttpServletResponse.SC_OK);
          response.setContentLength(0);
        } else {
          Responses.json(response, HttpServletResponse.SC_OK, body);
        }
      }
    }
  }

  /** An op that takes no data refuses a body beyond the limit (413) rather than read it all. */
  private void refuseLargeBody(HttpServletRequest request, WebHdfsOp op) throws IOException {
    long declared = request.getContentLengthLong();
    if (declared > maxMetadataBody) {
      throw tooLarge(op, declared);
    }
    if (declared < 0 && request.getHeader("Transfer-Encoding") != null) {
      InputStream body = request.getInputStream();
      byte[] skip = new byte[8192];
      long read = 0;
      for (int n; (n = body.read(skip)) >= 0; ) {
        read += n;
        if (read > maxMetadataBody) {
          throw tooLarge(op, read);
        }
      }
    }
  }

  private RemoteError.TooLarge tooLarge(WebHdfsOp op, long bytes) {
    return new RemoteError.TooLarge(op + " takes no data, and this request sends " + bytes
        + " bytes or more (at most " + maxMetadataBody + " are accepted)");
  }

  /** This gateway's {@code host:port} as the client reached it. */
  private static String self(HttpServletRequest request) {
    String host = request.getLocalAddr();
    if (host.indexOf(':') >= 0) {
      host = "[" + host + "]";
    }
    return host + ":" + request.getLocalPort();
  }
}
