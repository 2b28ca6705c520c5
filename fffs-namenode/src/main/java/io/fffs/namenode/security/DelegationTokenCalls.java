package io.fffs.namenode.security;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DelegationTokenProto;
import io.fffs.common.security.FffsDelegationTokenIdentifier;
import java.io.IOException;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.UserGroupInformation.AuthenticationMethod;
import org.apache.hadoop.security.token.SecretManager;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.thirdparty.protobuf.ByteString;

/**
 * The delegation-token calls of the client protocol, as HDFS has them: only a caller authenticated by Kerberos
 * (not by a token) gets or renews one; the renewer named at issue renews it; its owner or renewer cancels it. With
 * Kerberos off there are none (no token, as Hadoop's {@code FileSystem} default). Refusals are
 * {@code ACCESS_DENIED} with Hadoop's reason. With HA only the leader serves them ({@code NOT_LEADER} elsewhere).
 */
public final class DelegationTokenCalls {
  private final DelegationTokens tokens;

  /** @param tokens the secret manager, or null when Kerberos is off */
  public DelegationTokenCalls(DelegationTokens tokens) {
    this.tokens = tokens;
  }

  /** A new token for the caller, renewable by {@code renewer}; null when Kerberos is off. */
  public DelegationTokenProto get(String renewer) throws IOException {
    if (tokens == null) {
      return null;
    }
    UserGroupInformation caller = kerberosCaller("get a delegation token");
    tokens.checkServing("issue a delegation token");
    Text realUser = caller.getRealUser() == null ? null : new Text(caller.getRealUser().getUserName());
    FffsDelegationTokenIdentifier id = new FffsDelegationTokenIdentifier(new Text(caller.getUserName()),
        new Text(renewer), realUser);
    Token<FffsDelegationTokenIdentifier> token = new Token<>(id, tokens);
    return DelegationTokenProto.newBuilder().setIdentifier(ByteString.copyFrom(token.getIdentifier()))
        .setPassword(ByteString.copyFrom(token.getPassword())).setKind(token.getKind().toString())
        .setService(token.getService().toString()).build();
  }

  /** Renews {@code proto} for its renewer; returns its new expiry. */
  public long renew(DelegationTokenProto proto) throws IOException {
    UserGroupInformation caller = kerberosCaller("renew a delegation token");
    try {
      running().checkServing("renew a delegation token");
      return tokens.renewToken(token(proto), caller.getShortUserName());
    } catch (SecretManager.InvalidToken | AccessControlException e) {
      throw new FffsException(ErrorCode.ACCESS_DENIED, "cannot renew the delegation token: " + e.getMessage());
    }
  }

  /** Cancels {@code proto} for its owner or renewer. */
  public void cancel(DelegationTokenProto proto) throws IOException {
    UserGroupInformation caller = caller();
    try {
      running().checkServing("cancel a delegation token");
      tokens.cancelToken(token(proto), caller.getUserName());
    } catch (SecretManager.InvalidToken | AccessControlException e) {
      throw new FffsException(ErrorCode.ACCESS_DENIED, "cannot cancel the delegation token: " + e.getMessage());
    }
  }

  private DelegationTokens running() throws FffsException {
    if (tokens == null) {
      throw new FffsException(ErrorCode.UNSUPPORTED, "this NameNode issues no delegation tokens:"
          + " hadoop.security.authentication is not kerberos");
    }
    return tokens;
  }

  private static Token<FffsDelegationTokenIdentifier> token(DelegationTokenProto proto) {
    return new Token<>(proto.getIdentifier().toByteArray(), proto.getPassword().toByteArray(),
        new Text(proto.getKind()), new Text(proto.getService()));
  }

  private static UserGroupInformation caller() throws IOException {
    UserGroupInformation caller = Server.getRemoteUser();
    return caller != null ? caller : UserGroupInformation.getCurrentUser();
  }

  private UserGroupInformation kerberosCaller(String what) throws IOException {
    running();
    UserGroupInformation caller = caller();
    AuthenticationMethod method = caller.getRealAuthenticationMethod();
    if (method != AuthenticationMethod.KERBEROS && method != AuthenticationMethod.KERBEROS_SSL
        && method != AuthenticationMethod.CERTIFICATE) {
      throw new FffsException(ErrorCode.ACCESS_DENIED, caller.getUserName() + " cannot " + what + ": it"
          + " authenticated by " + method + ", and only a Kerberos login may (a token cannot beget tokens)");
    }
    return caller;
  }
}
