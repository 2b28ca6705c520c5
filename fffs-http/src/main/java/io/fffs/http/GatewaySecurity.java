package io.fffs.http;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.security.FffsDelegationTokenIdentifier;
import io.fffs.common.security.KerberosConfigKeys;
import java.io.IOException;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.Map;
import javax.servlet.DispatcherType;
import javax.servlet.FilterChain;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authentication.server.AuthenticationFilter;
import org.apache.hadoop.security.token.Token;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.servlet.ServletContextHandler;

/**
 * Kerberos on a WebHDFS gateway, as HDFS's WebHDFS has it: every request authenticates by SPNEGO (Hadoop's
 * {@link AuthenticationFilter}) unless it carries {@code delegation=<token>}; the gateway reaches the NameNode as
 * its own principal acting for the SPNEGO user (a proxy user: the NameNode's {@code hadoop.proxyuser.<gateway>.*}
 * must allow it), or with the request's delegation token as the token's owner. Without Kerberos, the user is
 * {@code user.name} (simple authentication).
 */
final class GatewaySecurity {
  /** The gateway's own principal and keytab (for its IPC connections to the NameNode). */
  static final String PRINCIPAL_KEY = "fffs.http.kerberos.principal";
  static final String KEYTAB_KEY = "fffs.http.keytab.file";
  private static final String TOKEN_KEY_PREFIX = "token:";

  final boolean enabled;

  private GatewaySecurity(boolean enabled) {
    this.enabled = enabled;
  }

  /** Applies {@code conf}'s security settings; with Kerberos, logs the gateway in from its keytab if not yet. */
  static GatewaySecurity start(Configuration conf, String bindHost) throws IOException {
    if (!KerberosConfigKeys.enabled(conf)) {
      return new GatewaySecurity(false);
    }
    UserGroupInformation.setConfiguration(conf);
    if (!UserGroupInformation.isLoginKeytabBased()) {  // else a daemon of this process logged in already
      for (String key : new String[] {PRINCIPAL_KEY, KEYTAB_KEY}) {
        if (conf.getTrimmed(key, "").isEmpty()) {
          throw new IOException("hadoop.security.authentication=kerberos, but " + key + " is not set: the WebHDFS"
              + " gateway needs its principal (" + PRINCIPAL_KEY + ") and keytab (" + KEYTAB_KEY + ")");
        }
      }
      SecurityUtil.login(conf, KEYTAB_KEY, PRINCIPAL_KEY, hostOf(bindHost));
    }
    return new GatewaySecurity(true);
  }

  /** Adds the SPNEGO filter in front of every path (with Kerberos only). */
  void addFilter(ServletContextHandler context, Configuration conf, String bindHost) throws IOException {
    if (!enabled) {
      return;
    }
    String principal = conf.getTrimmed(KerberosConfigKeys.WEB_PRINCIPAL_KEY, "");
    if (principal.isEmpty()) {
      throw new IOException("hadoop.security.authentication=kerberos, but " + KerberosConfigKeys.WEB_PRINCIPAL_KEY
          + " is not set: the WebHDFS gateway needs a principal for SPNEGO (HTTP/_HOST@REALM)");
    }
    FilterHolder holder = new FilterHolder(new SkipWithDelegation());
    holder.setInitParameter(AuthenticationFilter.AUTH_TYPE, "kerberos");
    holder.setInitParameter("kerberos.principal", SecurityUtil.getServerPrincipal(principal, hostOf(bindHost)));
    holder.setInitParameter("kerberos.keytab", conf.getTrimmed(KerberosConfigKeys.WEB_KEYTAB_KEY,
        conf.getTrimmed(KEYTAB_KEY, conf.getTrimmed(KerberosConfigKeys.NAMENODE_KEYTAB_KEY, ""))));
    holder.setInitParameter("kerberos.name.rules", conf.get("hadoop.security.auth_to_local", "DEFAULT"));
    context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST));
  }

  /**
   * The key of the client a request uses ({@link UserFileSystems}) and the user it acts as: with Kerberos, its
   * delegation token's owner or its SPNEGO user; else {@code simpleUser} ({@code user.name}).
   */
  String[] identify(HttpServletRequest request, Map<String, String> parameters, String simpleUser)
      throws IOException {
    if (!enabled) {
      return new String[] {simpleUser, simpleUser};
    }
    String delegation = parameters.get("delegation");
    if (delegation != null && !delegation.isEmpty()) {
      return new String[] {TOKEN_KEY_PREFIX + delegation, decode(delegation).decodeIdentifier().getUser()
          .getShortUserName()};
    }
    String user = request.getRemoteUser();
    if (user == null) {
      throw new FffsException(ErrorCode.ACCESS_DENIED, "this gateway requires Kerberos: authenticate by SPNEGO"
          + " (curl --negotiate -u :) or pass a delegation token (delegation=)");
    }
    return new String[] {user, user};
  }

  /** The user a client of key {@code key} runs as. */
  UserGroupInformation userFor(String key) throws IOException {
    if (!enabled) {
      return UserGroupInformation.createRemoteUser(key);
    }
    if (key.startsWith(TOKEN_KEY_PREFIX)) {
      Token<FffsDelegationTokenIdentifier> token = decode(key.substring(TOKEN_KEY_PREFIX.length()));
      UserGroupInformation owner = UserGroupInformation.createRemoteUser(
          token.decodeIdentifier().getUser().getShortUserName());
      owner.addToken(token);
      return owner;
    }
    return UserGroupInformation.createProxyUser(key, UserGroupInformation.getLoginUser());
  }

  /** The key of the client that a request with {@code delegation} uses. */
  static String tokenKey(String delegation) {
    return TOKEN_KEY_PREFIX + delegation;
  }

  static Token<FffsDelegationTokenIdentifier> decode(String urlString) throws FffsException {
    Token<FffsDelegationTokenIdentifier> token = new Token<>();
    try {
      token.decodeFromUrlString(urlString);
      if (!FffsDelegationTokenIdentifier.KIND.equals(token.getKind()) || token.decodeIdentifier() == null) {
        throw new IOException("not an FFFS delegation token (kind " + token.getKind() + ")");
      }
    } catch (IOException | RuntimeException e) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "Invalid value for webhdfs parameter \"delegation\": "
          + e.getMessage());
    }
    return token;
  }

  private static String hostOf(String bindHost) throws IOException {
    InetAddress address = InetAddress.getByName(bindHost);
    return address.isAnyLocalAddress() ? InetAddress.getLocalHost().getCanonicalHostName()
        : address.getCanonicalHostName();
  }

  /** Hadoop's SPNEGO filter, except for requests that bring a delegation token (the servlet checks those). */
  static final class SkipWithDelegation extends AuthenticationFilter {
    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
        throws IOException, ServletException {
      Map<String, String> parameters;
      try {
        parameters = UrlText.parameters(((HttpServletRequest) request).getQueryString());
      } catch (FffsException e) {
        parameters = Map.of();  // malformed: authenticate first; the servlet refuses it then
      }
      String delegation = parameters.get("delegation");
      if (delegation != null && !delegation.isEmpty()) {
        chain.doFilter(request, response);
      } else {
        super.doFilter(request, response, chain);
      }
    }
  }
}
