package io.fffs.common.security;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.net.InetAddress;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.SecurityUtil;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * Kerberos for the NameNode's Hadoop IPC, through Hadoop's own mechanisms: with
 * {@code hadoop.security.authentication=kerberos} every IPC connection is authenticated by SASL/GSSAPI, each daemon
 * logs in from its keytab, principals map to users by {@code hadoop.security.auth_to_local}, and proxy users follow
 * {@code hadoop.proxyuser.*}. A principal may contain {@code _HOST}, replaced by the daemon's host name.
 */
public final class KerberosConfigKeys {
  private KerberosConfigKeys() {}

  /** The NameNode's principal (clients authenticate the NameNode by it), e.g. {@code fffs/_HOST@EXAMPLE.COM}. */
  public static final String NAMENODE_PRINCIPAL_KEY = "fffs.namenode.kerberos.principal";
  public static final String NAMENODE_KEYTAB_KEY = "fffs.namenode.keytab.file";
  /** The DataNodes' principal: the NameNode registers only DataNodes that authenticate as it. */
  public static final String DATANODE_PRINCIPAL_KEY = "fffs.datanode.kerberos.principal";
  public static final String DATANODE_KEYTAB_KEY = "fffs.datanode.keytab.file";

  /** The principal of the HTTP endpoints (SPNEGO), e.g. {@code HTTP/_HOST@EXAMPLE.COM}. */
  public static final String WEB_PRINCIPAL_KEY = "fffs.web.authentication.kerberos.principal";
  /** Its keytab (default: the NameNode's). */
  public static final String WEB_KEYTAB_KEY = "fffs.web.authentication.kerberos.keytab";

  /**
   * With Kerberos, sets {@code httpConf} (an {@code HttpServer2}'s) so that Hadoop's {@code AuthenticationFilter}
   * asks every request of every path for SPNEGO ({@code /status}, {@code /jmx}, {@code /conf}, ...), as principal
   * {@link #WEB_PRINCIPAL_KEY} with {@code _HOST} the server's {@code host}; nothing without Kerberos. A missing
   * principal fails at once.
   */
  public static void spnego(Configuration conf, Configuration httpConf, String host) throws IOException {
    if (!enabled(conf)) {
      return;
    }
    String principal = conf.getTrimmed(WEB_PRINCIPAL_KEY);
    if (principal == null || principal.isEmpty()) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "hadoop.security.authentication=kerberos, but "
          + WEB_PRINCIPAL_KEY + " is not set: the HTTP endpoints need a principal for SPNEGO (HTTP/_HOST@REALM)");
    }
    String initializers = httpConf.getTrimmed("hadoop.http.filter.initializers", "");
    String filter = "org.apache.hadoop.security.AuthenticationFilterInitializer";
    if (!initializers.contains(filter)) {
      httpConf.set("hadoop.http.filter.initializers", initializers.isEmpty() ? filter : initializers + "," + filter);
    }
    httpConf.set("hadoop.http.authentication.type", "kerberos");
    httpConf.setBoolean("hadoop.http.authentication.simple.anonymous.allowed", false);
    httpConf.set("hadoop.http.authentication.kerberos.principal", SecurityUtil.getServerPrincipal(principal, host));
    httpConf.set("hadoop.http.authentication.kerberos.keytab", conf.getTrimmed(WEB_KEYTAB_KEY,
        conf.getTrimmed(NAMENODE_KEYTAB_KEY, "")));
    httpConf.set("hadoop.http.authentication.kerberos.name.rules",
        conf.get("hadoop.security.auth_to_local", "DEFAULT"));
  }

  /** Whether {@code conf} asks for Kerberos ({@code hadoop.security.authentication=kerberos}). */
  public static boolean enabled(Configuration conf) {
    return "kerberos".equalsIgnoreCase(conf.getTrimmed("hadoop.security.authentication", "simple"));
  }

  /**
   * Applies {@code conf}'s security settings to this process and, with Kerberos, logs the NameNode in from its
   * keytab as the process's login user (the IPC server authenticates as it). A missing principal or keytab fails
   * at once, naming the setting.
   */
  public static void loginNameNode(Configuration conf, String host) throws IOException {
    UserGroupInformation.setConfiguration(conf);
    if (enabled(conf)) {
      require(conf, NAMENODE_PRINCIPAL_KEY, NAMENODE_KEYTAB_KEY, "NameNode");
      SecurityUtil.login(conf, NAMENODE_KEYTAB_KEY, NAMENODE_PRINCIPAL_KEY, host);
    }
  }

  /**
   * The user a DataNode talks to the NameNode as: with Kerberos, its principal logged in from its keytab (without
   * changing the process's login user, so a NameNode in the same process keeps its own); else the current user.
   */
  public static UserGroupInformation loginDataNode(Configuration conf, String host) throws IOException {
    UserGroupInformation.setConfiguration(conf);
    if (!enabled(conf)) {
      return UserGroupInformation.getCurrentUser();
    }
    require(conf, DATANODE_PRINCIPAL_KEY, DATANODE_KEYTAB_KEY, "DataNode");
    String principal = SecurityUtil.getServerPrincipal(conf.get(DATANODE_PRINCIPAL_KEY), host);
    if (!UserGroupInformation.isLoginKeytabBased()) {
      // The only daemon of its process: the login user, which Hadoop logs in again before its ticket expires.
      SecurityUtil.login(conf, DATANODE_KEYTAB_KEY, DATANODE_PRINCIPAL_KEY, host);
      return UserGroupInformation.getLoginUser();
    }
    UserGroupInformation login = UserGroupInformation.getLoginUser();
    return login.getUserName().equals(principal) ? login
        : UserGroupInformation.loginUserFromKeytabAndReturnUGI(principal, conf.get(DATANODE_KEYTAB_KEY));
  }

  /** The principal a DataNode on {@code address} must authenticate as, or null when none is configured. */
  public static String expectedDataNodePrincipal(Configuration conf, InetAddress address) throws IOException {
    String pattern = conf.getTrimmed(DATANODE_PRINCIPAL_KEY);
    return pattern == null || pattern.isEmpty() ? null : SecurityUtil.getServerPrincipal(pattern, address);
  }

  private static void require(Configuration conf, String principalKey, String keytabKey, String daemon)
      throws FffsException {
    for (String key : new String[] {principalKey, keytabKey}) {
      String value = conf.getTrimmed(key);
      if (value == null || value.isEmpty()) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "hadoop.security.authentication=kerberos, but " + key
            + " is not set: the " + daemon + " needs its principal (" + principalKey + ", e.g. fffs/_HOST@REALM)"
            + " and keytab (" + keytabKey + ") to log in");
      }
    }
  }
}
