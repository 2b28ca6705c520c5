package io.fffs.client.security;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.ha.HaConfigKeys;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DelegationTokenProto;
import io.fffs.common.security.FffsDelegationTokenIdentifier;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.TokenIdentifier;
import org.apache.hadoop.security.token.TokenRenewer;
import org.apache.hadoop.thirdparty.protobuf.ByteString;

/**
 * FFFS delegation tokens on the client: fetched for {@code FileSystem#getDelegationToken} (and so
 * {@code addDelegationTokens}), and renewed and cancelled through {@code Token#renew}/{@code Token#cancel}, for which
 * Hadoop finds this class as the {@link TokenRenewer} of kind {@code FFFS_DELEGATION_TOKEN} (ServiceLoader).
 */
public final class DelegationTokenClient extends TokenRenewer {
  /**
   * The service of a token for a cluster of several NameNodes ({@code fffs://mycluster}), as HDFS names its
   * {@code ha-hdfs:} tokens: the token serves whichever NameNode leads.
   */
  public static final String HA_SERVICE_PREFIX = "ha-fffs:";

  /** The service a token of the NameNodes of {@code uri} is kept under: {@code ha-fffs:name} for a cluster. */
  public static String serviceOf(URI uri, Configuration conf, int defaultPort) {
    if (HaConfigKeys.isLogical(conf, uri.getAuthority())) {
      return HA_SERVICE_PREFIX + uri.getHost();
    }
    return SecurityUtil.buildDTServiceName(uri, defaultPort);
  }

  /**
   * A cluster's tokens in {@code user}'s credentials, copied under each of its NameNodes' addresses: Hadoop's IPC
   * picks a token by the address it connects to (HDFS copies its {@code ha-hdfs:} tokens alike).
   */
  public static void copyForEachNameNode(UserGroupInformation user, String nameservice, Configuration conf) {
    Text service = new Text(HA_SERVICE_PREFIX + nameservice);
    for (Token<? extends TokenIdentifier> token : user.getTokens()) {
      if (!FffsDelegationTokenIdentifier.KIND.equals(token.getKind()) || !service.equals(token.getService())) {
        continue;
      }
      for (HaConfigKeys.NamenodeAddress namenode : HaConfigKeys.namenodes(conf, nameservice)) {
        Token<? extends TokenIdentifier> copy = token.privateClone(SecurityUtil.buildTokenService(namenode.rpc()));
        user.addToken(new Text(HA_SERVICE_PREFIX + "//" + copy.getService()), copy);
      }
    }
  }

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
    HybridLogicalClock clock = new HybridLogicalClock(PhysicalClock.system(), conf);
    String service = token.getService().toString();
    if (service.startsWith(HA_SERVICE_PREFIX)) {
      return NamenodeClient.connectHa(service.substring(HA_SERVICE_PREFIX.length()), conf, clock);  // the leader
    }
    InetSocketAddress address = SecurityUtil.getTokenServiceAddr(token);
    return NamenodeClient.connect(address, conf, clock);
  }

  private static DelegationTokenProto toProto(Token<?> token) {
    return DelegationTokenProto.newBuilder().setIdentifier(ByteString.copyFrom(token.getIdentifier()))
        .setPassword(ByteString.copyFrom(token.getPassword())).setKind(token.getKind().toString())
        .setService(token.getService().toString()).build();
  }
}
