package io.fffs.minicluster.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.security.KerberosConfigKeys;
import io.fffs.datanode.DataNode;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.namenode.NameNode;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import org.apache.hadoop.security.authentication.client.AuthenticatedURL;
import org.apache.hadoop.security.authentication.client.KerberosAuthenticator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsShell;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import io.fffs.common.security.FffsDelegationTokenIdentifier;
import io.fffs.namenode.security.DelegationTokens;
import org.apache.hadoop.security.authentication.util.KerberosName;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kerberized {@link MiniFffsCluster} on Hadoop's {@link MiniKdc}: the NameNode and the DataNode log in from their
 * keytab, a user logged in from a keytab works through the API and FsShell, a user without a ticket is refused
 * with a sentence that says what to do, proxy users follow {@code hadoop.proxyuser.*}, and a DataNode with the
 * wrong principal is refused at registration. Runs in a JVM of its own (surefire execution {@code kerberos}).
 */
class KerberosClusterTest {
  @TempDir
  static Path base;
  static MiniKdc kdc;
  static String realm;
  static File serviceKeytab;
  static File userKeytab;
  static MiniFffsCluster cluster;
  static UserGroupInformation alice;
  /** The settings every kerberized cluster of this test starts from. */
  static Configuration secure;

  @BeforeAll
  static void start() throws Exception {
    kdc = new MiniKdc(MiniKdc.createConf(), base.resolve("kdc").toFile());
    kdc.start();
    KerberosName.resetDefaultRealm();
    realm = kdc.getRealm();
    serviceKeytab = base.resolve("fffs.keytab").toFile();
    userKeytab = base.resolve("users.keytab").toFile();
    kdc.createPrincipal(serviceKeytab, "fffs/localhost", "HTTP/localhost");
    kdc.createPrincipal(userKeytab, "alice", "mallory/localhost");

    Configuration conf = new Configuration();
    conf.set("hadoop.security.authentication", "kerberos");
    conf.set(KerberosConfigKeys.NAMENODE_PRINCIPAL_KEY, "fffs/_HOST@" + realm);
    conf.set(KerberosConfigKeys.NAMENODE_KEYTAB_KEY, serviceKeytab.getPath());
    conf.set(KerberosConfigKeys.DATANODE_PRINCIPAL_KEY, "fffs/_HOST@" + realm);
    conf.set(KerberosConfigKeys.DATANODE_KEYTAB_KEY, serviceKeytab.getPath());
    conf.set(KerberosConfigKeys.WEB_PRINCIPAL_KEY, "HTTP/_HOST@" + realm);
    // Settings /conf must not show the values of (Hadoop's hadoop.security.sensitive-config-keys).
    conf.set("ssl.server.keystore.password", "keystore-password-not-shown");
    conf.set("fffs.test.client.secret", "client-secret-not-shown");
    conf.set("hadoop.security.auth_to_local", "RULE:[2:$1@$0](fffs@" + realm + ")s/.*/fffs/\nDEFAULT");
    // alice may act for carol, from any host; for nobody else.
    conf.set("hadoop.proxyuser.alice.hosts", "*");
    conf.set("hadoop.proxyuser.alice.users", "carol");
    // The WebHDFS gateways run as the service principal and act for the users SPNEGO authenticated.
    conf.set("hadoop.proxyuser.fffs.hosts", "*");
    conf.set("hadoop.proxyuser.fffs.users", "*");
    conf.set(DataNodeServiceConfigKeys.REGISTER_TIMEOUT_KEY, "20s");
    // Delegation tokens: keys roll every 2 s; a token not renewed for 15 s expires (long enough for a NameNode
    // restart or failover on a loaded machine, which the tokens must outlive).
    conf.set(DelegationTokens.KEY_UPDATE_INTERVAL_KEY, "2s");
    conf.set(DelegationTokens.RENEW_INTERVAL_KEY, "15s");
    conf.set(DelegationTokens.MAX_LIFETIME_KEY, "2m");
    secure = new Configuration(conf);
    cluster = MiniFffsCluster.builder().baseDir(base.resolve("cluster")).conf(conf).numDataNodes(1).webHdfs()
        .build();

    // The test thread is the NameNode's login user now (the superuser): it makes the users' directories.
    try (FileSystem admin = cluster.getFileSystem()) {
      assertThat(UserGroupInformation.getLoginUser().getShortUserName()).isEqualTo("fffs");
      admin.mkdirs(new org.apache.hadoop.fs.Path("/user/alice"));
      admin.setOwner(new org.apache.hadoop.fs.Path("/user/alice"), "alice", null);
      admin.mkdirs(new org.apache.hadoop.fs.Path("/tmp"));
      admin.setPermission(new org.apache.hadoop.fs.Path("/tmp"), new FsPermission((short) 01777));
    }
    alice = UserGroupInformation.loginUserFromKeytabAndReturnUGI("alice@" + realm, userKeytab.getPath());
  }

  @AfterAll
  static void stop() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
    if (kdc != null) {
      kdc.stop();
    }
  }

  @Test
  void aUserLoggedInFromAKeytabWritesAndReadsThroughTheApiAndFsShell() throws Exception {
    byte[] content = "written by alice".getBytes(StandardCharsets.UTF_8);
    as(alice, () -> {
      try (FileSystem fs = cluster.getFileSystem()) {
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/user/alice/a");
        try (FSDataOutputStream out = fs.create(file)) {
          out.write(content);
        }
        assertThat(fs.getFileStatus(file).getOwner()).isEqualTo("alice");
        assertThat(readAll(fs, file)).isEqualTo(content);
      }
      return null;
    });

    Path local = base.resolve("local.txt");
    Files.write(local, content);
    Configuration shellConf = new Configuration(cluster.getConfiguration());
    int put = as(alice, () -> ToolRunner.run(new FsShell(shellConf),
        new String[] {"-put", local.toString(), "/user/alice/b"}));
    int test = as(alice, () -> ToolRunner.run(new FsShell(shellConf),
        new String[] {"-test", "-f", "/user/alice/b"}));
    assertThat(put).isZero();
    assertThat(test).isZero();
    try (FileSystem admin = cluster.getFileSystem()) {
      assertThat(admin.getFileStatus(new org.apache.hadoop.fs.Path("/user/alice/b")).getOwner()).isEqualTo("alice");
    }
  }

  @Test
  void aUserWithoutATicketIsRefusedWithASentenceThatSaysWhatToDo() {
    UserGroupInformation eve = UserGroupInformation.createRemoteUser("eve");
    assertThatThrownBy(() -> as(eve, () -> {
      try (FileSystem fs = cluster.getFileSystem()) {
        return fs.getFileStatus(new org.apache.hadoop.fs.Path("/"));
      }
    })).isInstanceOf(AccessControlException.class)
        .hasMessageContaining("requires Kerberos (hadoop.security.authentication=kerberos)")
        .hasMessageContaining("eve")
        .hasMessageContaining("run kinit, or log in from a keytab");
  }

  @Test
  void proxyUsersActForWhomTheSettingsAllow() throws Exception {
    UserGroupInformation carol = UserGroupInformation.createProxyUser("carol", alice);
    String owner = as(carol, () -> {
      try (FileSystem fs = cluster.getFileSystem()) {
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/tmp/by-carol");
        fs.create(file).close();
        return fs.getFileStatus(file).getOwner();
      }
    });
    assertThat(owner).isEqualTo("carol");

    UserGroupInformation dave = UserGroupInformation.createProxyUser("dave", alice);
    assertThatThrownBy(() -> as(dave, () -> {
      try (FileSystem fs = cluster.getFileSystem()) {
        return fs.getFileStatus(new org.apache.hadoop.fs.Path("/"));
      }
    })).hasMessageContaining("is not allowed to impersonate dave");
  }

  @Test
  void aDataNodeWithTheWrongPrincipalIsRefusedAtRegistration() throws Exception {
    Configuration conf = new Configuration(cluster.getConfiguration());
    conf.set(KerberosConfigKeys.DATANODE_PRINCIPAL_KEY, "mallory/_HOST@" + realm);
    conf.set(KerberosConfigKeys.DATANODE_KEYTAB_KEY, userKeytab.getPath());
    conf.set(DataNodeConfigKeys.DATA_DIR_KEY, base.resolve("mallory").resolve("data").toString());
    conf.set(DataNodeConfigKeys.MEMORY_DIR_KEY, base.resolve("mallory").resolve("memory").toString());
    conf.set(DataNodeServiceConfigKeys.DATA_ADDRESS_KEY, "127.0.0.1:0");
    long started = System.nanoTime();
    assertThatThrownBy(() -> DataNode.start(conf, io.fffs.common.time.PhysicalClock.system()))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED))
        .hasMessageContaining("authenticated as mallory/localhost@" + realm)
        .hasMessageContaining("DataNodes must be fffs/localhost@" + realm);
    // Refused, not retried until the registration timeout (20 s).
    assertThat(System.nanoTime() - started).isLessThan(15_000_000_000L);
    assertThat(cluster.getNameNode().namesystem().datanodes().liveCount()).isEqualTo(1);
  }

  @Test
  void delegationTokensAreUsedRenewedCancelledAndExpireAndSurviveANameNodeRestart() throws Exception {
    Configuration conf = cluster.getConfiguration();
    Credentials credentials = new Credentials();
    Token<?> token = collectToken(cluster, credentials);

    // A task that has only the token (no ticket) works as alice.
    UserGroupInformation task = UserGroupInformation.createRemoteUser("alice");
    task.addCredentials(credentials);
    assertThat(ownerOfANewFile(task, "/user/alice/by-task")).isEqualTo("alice");
    // A token does not beget tokens.
    assertThatThrownBy(() -> as(task, () -> {
      try (FileSystem fs = cluster.getFileSystem()) {
        return fs.getDelegationToken("alice");
      }
    })).hasMessageContaining("only a Kerberos login may");

    // Renewed by its renewer; then the keys roll and the NameNode restarts: the token still works and renews.
    long renewedUntil = as(alice, () -> token.renew(conf));
    assertThat(renewedUntil).isGreaterThan(System.currentTimeMillis());
    Thread.sleep(2_500);  // at least one key roll, logged
    cluster.restartNameNode();
    for (UserGroupInformation user : new UserGroupInformation[] {task, alice}) {
      // A query first: it retries the connection each user still had to the NameNode before its restart.
      as(user, () -> {
        try (FileSystem fs = cluster.getFileSystem()) {
          return fs.getFileStatus(new org.apache.hadoop.fs.Path("/user/alice"));
        }
      });
    }
    assertThat(ownerOfANewFile(task, "/user/alice/after-restart")).isEqualTo("alice");
    assertThat(as(alice, () -> token.renew(conf))).isGreaterThanOrEqualTo(renewedUntil);

    // Cancelled by its owner: refused from then on.
    as(alice, () -> {
      token.cancel(conf);
      return null;
    });
    // (A connection authenticated before stays open until idle, as on HDFS: a new one is refused.)
    UserGroupInformation afterCancel = UserGroupInformation.createRemoteUser("alice");
    afterCancel.addToken(token);
    assertThatThrownBy(() -> ownerOfANewFile(afterCancel, "/user/alice/after-cancel"))
        .hasStackTraceContaining("can't be found in cache");

    // A token nobody renews expires after the renew interval.
    Token<?> unrenewed = as(alice, () -> {
      try (FileSystem fs = cluster.getFileSystem()) {
        return fs.getDelegationToken("alice");
      }
    });
    UserGroupInformation late = UserGroupInformation.createRemoteUser("alice");
    late.addToken(unrenewed);
    assertThat(ownerOfANewFile(late, "/user/alice/before-expiry")).isEqualTo("alice");
    long deadline = System.nanoTime() + 45_000_000_000L;
    Throwable refused = null;
    while (refused == null && System.nanoTime() < deadline) {
      Thread.sleep(500);
      UserGroupInformation fresh = UserGroupInformation.createRemoteUser("alice");  // a new connection each time
      fresh.addToken(unrenewed);
      try {
        ownerOfANewFile(fresh, "/user/alice/expiring");
      } catch (Exception e) {
        refused = e;
      }
    }
    assertThat(refused).as("the unrenewed token was still accepted after 45 s").isNotNull();
    assertThat(stackTrace(refused)).contains("InvalidToken").contains("expired");
  }

  /**
   * Three NameNodes: a token the leader issued authenticates a ticketless task at whichever NameNode it reaches,
   * and stays valid once that leader stopped; the new leader renews it and cancels it (the keys and tokens travel in
   * the replicated log, and a NameNode taking the lead loads them).
   */
  @Test
  void aDelegationTokenOutlivesTheLeaderThatIssuedIt() throws Exception {
    try (MiniFffsCluster ha = MiniFffsCluster.builder().baseDir(base.resolve("ha")).conf(new Configuration(secure))
        .numNameNodes(3).numDataNodes(1).build()) {
      try (FileSystem admin = ha.getFileSystem()) {
        admin.mkdirs(new org.apache.hadoop.fs.Path("/user/alice"));
        admin.setOwner(new org.apache.hadoop.fs.Path("/user/alice"), "alice", null);
      }
      Configuration conf = ha.getConfiguration();
      Credentials credentials = new Credentials();
      Token<?> token = collectToken(ha, credentials);
      assertThat(token.getService().toString()).isEqualTo("ha-fffs:" + MiniFffsCluster.NAMESERVICE);
      assertThat(ownerOfANewFile(ha, task(credentials), "/user/alice/before-failover")).isEqualTo("alice");

      NameNode issuer = ha.getNameNode();
      for (int i = 0; i < ha.getNumNameNodes(); i++) {
        if (ha.getNameNode(i) == issuer) {
          ha.stopNameNode(i);
        }
      }
      ha.waitActive();
      assertThat(ownerOfANewFile(ha, task(credentials), "/user/alice/after-failover")).isEqualTo("alice");
      assertThat(as(alice, () -> token.renew(conf))).isGreaterThan(System.currentTimeMillis());
      assertThat(ownerOfANewFile(ha, task(credentials), "/user/alice/after-renewal")).isEqualTo("alice");
      as(alice, () -> {
        token.cancel(conf);
        return null;
      });
      assertThatThrownBy(() -> ownerOfANewFile(ha, task(credentials), "/user/alice/after-cancel"))
          .hasStackTraceContaining("can't be found in cache");
    }
  }

  /** Alice collects a token of {@code on} into {@code credentials}, as a job's submitter does. */
  private static Token<?> collectToken(MiniFffsCluster on, Credentials credentials) throws Exception {
    Token<?>[] collected = as(alice, () -> {
      try (FileSystem fs = on.getFileSystem()) {
        return fs.addDelegationTokens("alice", credentials);
      }
    });
    assertThat(collected).hasSize(1);
    assertThat(collected[0].getKind()).isEqualTo(FffsDelegationTokenIdentifier.KIND);
    return collected[0];
  }

  /** A ticketless user holding only {@code credentials}: new connections each time. */
  private static UserGroupInformation task(Credentials credentials) {
    UserGroupInformation task = UserGroupInformation.createRemoteUser("alice");
    task.addCredentials(credentials);
    return task;
  }

  private static String ownerOfANewFile(UserGroupInformation user, String path) throws Exception {
    return ownerOfANewFile(cluster, user, path);
  }

  private static String ownerOfANewFile(MiniFffsCluster on, UserGroupInformation user, String path)
      throws Exception {
    return as(user, () -> {
      try (FileSystem fs = on.getFileSystem()) {
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(path);
        fs.create(file, true).close();
        return fs.getFileStatus(file).getOwner();
      }
    });
  }

  private static String stackTrace(Throwable t) {
    java.io.StringWriter out = new java.io.StringWriter();
    t.printStackTrace(new java.io.PrintWriter(out));
    return out.toString();
  }

  @Test
  void theNameNodesHttpEndpointsAskForSpnegoAndShowNoSecrets() throws Exception {
    String base = cluster.getNameNode().httpUri().toString().replace("127.0.0.1", "localhost");
    for (String path : new String[] {"/status", "/conf", "/jmx"}) {
      HttpURLConnection anonymous = (HttpURLConnection) new URL(base + path).openConnection();
      assertThat(anonymous.getResponseCode()).as(path + " without a ticket").isEqualTo(401);
      anonymous.disconnect();
      String body = as(alice, () -> spnegoGet(base + path));
      assertThat(body).as(path).isNotEmpty().doesNotContain("keystore-password-not-shown")
          .doesNotContain("client-secret-not-shown");
    }
    // The setting is there, its value is not.
    assertThat(as(alice, () -> spnegoGet(base + "/conf"))).contains("fffs.test.client.secret");
  }

  @Test
  void webHdfsAsksForSpnegoAndServesDelegationTokens() throws Exception {
    String w = cluster.getWebHdfsURI().toString().replace("127.0.0.1", "localhost") + "/webhdfs/v1";
    HttpURLConnection anonymous = (HttpURLConnection) new URL(w + "/user/alice?op=GETFILESTATUS").openConnection();
    assertThat(anonymous.getResponseCode()).isEqualTo(401);
    assertThat(as(alice, () -> spnegoGet(w + "/?op=GETHOMEDIRECTORY"))).contains("/user/alice");

    byte[] content = "read over WebHDFS with a token".getBytes(StandardCharsets.UTF_8);
    as(alice, () -> {
      try (FileSystem fs = cluster.getFileSystem();
          FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path("/user/alice/web"))) {
        out.write(content);
      }
      return null;
    });
    String got = as(alice, () -> spnegoGet(w + "/?op=GETDELEGATIONTOKEN&renewer=alice"));
    String token = got.replaceAll(".*\"urlString\":\"([^\"]+)\".*", "$1");
    assertThat(token).isNotEmpty().doesNotContain("{");

    // Without a ticket, with the token: both steps of OPEN (the redirect to the data gateway carries it).
    HttpURLConnection open = (HttpURLConnection) new URL(w + "/user/alice/web?op=OPEN&delegation=" + token)
        .openConnection();
    assertThat(open.getResponseCode()).isEqualTo(200);
    try (InputStream in = open.getInputStream()) {
      assertThat(in.readAllBytes()).isEqualTo(content);
    }

    assertThat(as(alice, () -> spnego("PUT", w + "/?op=RENEWDELEGATIONTOKEN&token=" + token, 200)))
        .startsWith("{\"long\":");
    as(alice, () -> spnego("PUT", w + "/?op=CANCELDELEGATIONTOKEN&token=" + token, 200));
    HttpURLConnection cancelled = (HttpURLConnection) new URL(w + "/user/alice/web?op=GETFILESTATUS&delegation="
        + token).openConnection();
    assertThat(cancelled.getResponseCode()).isEqualTo(403);
    try (InputStream in = cancelled.getErrorStream()) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).contains("InvalidToken");
    }
  }

  private static String spnegoGet(String url) throws Exception {
    return spnego("GET", url, 200);
  }

  private static String spnego(String method, String url, int status) throws Exception {
    // Authenticates first (an OPTIONS request), then makes the request with the cookie it got.
    HttpURLConnection connection = new AuthenticatedURL(new KerberosAuthenticator())
        .openConnection(new URL(url), new AuthenticatedURL.Token());
    connection.setRequestMethod(method);
    assertThat(connection.getResponseCode()).as(method + " " + url).isEqualTo(status);
    try (InputStream in = connection.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void aNameNodeWithoutItsKeytabSettingFailsAtOnceNamingIt() {
    Configuration conf = new Configuration(cluster.getConfiguration());
    conf.unset(KerberosConfigKeys.NAMENODE_KEYTAB_KEY);
    assertThatThrownBy(() -> NameNode.start(conf, io.fffs.common.time.PhysicalClock.system(), System::nanoTime))
        .hasMessageContaining(KerberosConfigKeys.NAMENODE_KEYTAB_KEY + " is not set");
  }

  private interface Action<T> {
    T run() throws Exception;
  }

  /** Runs {@code action} as {@code user}, rethrowing what it threw. */
  private static <T> T as(UserGroupInformation user, Action<T> action) throws Exception {
    try {
      return user.doAs((PrivilegedExceptionAction<T>) action::run);
    } catch (java.lang.reflect.UndeclaredThrowableException e) {
      throw (Exception) e.getCause();
    }
  }

  private static byte[] readAll(FileSystem fs, org.apache.hadoop.fs.Path path) throws IOException {
    try (InputStream in = fs.open(path)) {
      return in.readAllBytes();
    }
  }
}
