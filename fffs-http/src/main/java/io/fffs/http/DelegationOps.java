package io.fffs.http;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.security.PrivilegedExceptionAction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;

/**
 * WebHDFS's delegation-token ops: {@code GETDELEGATIONTOKEN} ({@code renewer}) answers
 * {@code {"Token":{"urlString":...}}} (null without Kerberos), {@code RENEWDELEGATIONTOKEN} ({@code token})
 * {@code {"long":expiry}}, {@code CANCELDELEGATIONTOKEN} ({@code token}) nothing. They run as the request's user,
 * so the NameNode applies its rules (only a Kerberos login gets or renews one; the renewer renews, the owner or
 * renewer cancels).
 */
final class DelegationOps {
  private final Configuration conf;
  private final UserFileSystems users;

  DelegationOps(Configuration conf, UserFileSystems users) {
    this.conf = conf;
    this.users = users;
  }

  static boolean handles(WebHdfsOp op) {
    return op == WebHdfsOp.GETDELEGATIONTOKEN || op == WebHdfsOp.RENEWDELEGATIONTOKEN
        || op == WebHdfsOp.CANCELDELEGATIONTOKEN;
  }

  /** The JSON answer, or null for none. */
  String serve(Call call, UserFileSystems.Entry client) throws IOException {
    if (call.op == WebHdfsOp.GETDELEGATIONTOKEN) {
      Token<?> token = client.fs.getDelegationToken(call.parameters.getOrDefault("renewer", call.user));
      return token == null ? "{\"Token\":null}"
          : new Json().beginObject().beginObject("Token").field("urlString", token.encodeToUrlString())
              .endObject().endObject().toString();
    }
    String encoded = call.parameters.get("token");
    if (encoded == null || encoded.isEmpty()) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, call.op + " needs the token parameter");
    }
    Token<?> token = GatewaySecurity.decode(encoded);
    if (call.op == WebHdfsOp.RENEWDELEGATIONTOKEN) {
      return "{\"long\":" + as(client.ugi, () -> token.renew(conf)) + "}";
    }
    as(client.ugi, () -> {
      token.cancel(conf);
      return null;
    });
    users.evict(GatewaySecurity.tokenKey(encoded));  // its connection must not outlive it here
    return null;
  }

  private static <T> T as(UserGroupInformation user, PrivilegedExceptionAction<T> action) throws IOException {
    try {
      return user.doAs(action);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted");
    }
  }
}
