package io.fffs.client.security;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DelegationTokenProto;
import io.fffs.common.security.FffsDelegationTokenIdentifier;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.TokenRenewer;
import org.apache.hadoop.thirdparty.protobuf.ByteString;

/**
 * FFFS delegation tokens on the client: fetched for {@code FileSystem#getDelegationToken} (and so
 * {@code addDelegationTokens}), and renewed and cancelled through {@code Token#renew}/{@code Token#cancel}, for which
 * Hadoop finds this class as the {@link TokenRenewer} of kind {@code FFFS_DELEGATION_TOKEN} (ServiceLoader).
 */
public final class DelegationTokenClient extends TokenRenewer {
  /** A token of {@code namenode}'s for {@code service} (the NameNode's address), or null without Kerberos. */
  public static Token<FffsDelegationTokenIdentifier> get(NamenodeClient namenode, String renewer, String service)
      throws IOException {
    DelegationTokenProto proto = namenode.getDelegationToken(renewer == null ? "" : renewer);
    if (proto == null) {
      return null;
    }
    return new Token<>(proto.getIdentifier().toByteArray(), proto.getPassword().toByteArray(),
        new Text(proto.getKind()), new Text(service));
  }

  @Override
  public boolean handleKind(Text kind) {
    return FffsDelegationTokenIdentifier.KIND.equals(kind);
  }

  @Override
  public boolean isManaged(Token<?> token) {
    return true;
  }

  @Override
  public long renew(Token<?> token, Configuration conf) throws IOException {
    try (NamenodeClient namenode = connect(token, conf)) {
      return namenode.renewDelegationToken(toProto(token));
    }
  }

  @Override
  public void cancel(Token<?> token, Configuration conf) throws IOException {
    try (NamenodeClient namenode = connect(token, conf)) {
      namenode.cancelDelegationToken(toProto(token));
    }
  }

  private static NamenodeClient connect(Token<?> token, Configuration conf) throws IOException {
    InetSocketAddress address = SecurityUtil.getTokenServiceAddr(token);
    return NamenodeClient.connect(address, conf, new HybridLogicalClock(PhysicalClock.system(), conf));
  }

  private static DelegationTokenProto toProto(Token<?> token) {
    return DelegationTokenProto.newBuilder().setIdentifier(ByteString.copyFrom(token.getIdentifier()))
        .setPassword(ByteString.copyFrom(token.getPassword())).setKind(token.getKind().toString())
        .setService(token.getService().toString()).build();
  }
}
