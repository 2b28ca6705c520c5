package io.fffs.http;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.net.NetUtils;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.eclipse.jetty.servlet.ServletHolder;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A WebHDFS gateway: {@code /webhdfs/v1/} over an {@code fffs://} file system, on Jetty. Run one beside the
 * NameNode — it answers metadata and redirects OPEN, CREATE and APPEND to the gateways listed in
 * {@code fffs.http.data-gateways} — and one beside each DataNode to move the bytes, so that file data never passes
 * through the NameNode's host (HDFS's NameNode and DataNodes split WebHDFS the same way). Each request runs as its
 * {@code user.name} through that user's own client ({@link UserFileSystems}).
 */
public final class WebHdfsGateway implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(WebHdfsGateway.class);

  private final Server server;
  private final ServerConnector connector;
  private final UserFileSystems users;

  private WebHdfsGateway(Server server, ServerConnector connector, UserFileSystems users) {
    this.server = server;
    this.connector = connector;
    this.users = users;
  }

  /** Starts a gateway configured by {@code conf} (see {@link HttpConfigKeys}). */
  public static WebHdfsGateway start(Configuration conf) throws IOException {
    URI fs = URI.create(conf.get(HttpConfigKeys.FILESYSTEM_KEY, FileSystem.getDefaultUri(conf).toString()));
    if (!"fffs".equals(fs.getScheme())) {
      throw new IOException("fffs.http.filesystem (or fs.defaultFS) must be an fffs:// URI, not " + fs);
    }

    QueuedThreadPool threads = new QueuedThreadPool(conf.getInt(HttpConfigKeys.MAX_THREADS_KEY,
        HttpConfigKeys.MAX_THREADS_DEFAULT), 4);
    threads.setName("webhdfs");
    threads.setDaemon(true);
    Server server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setRequestHeaderSize(conf.getInt(HttpConfigKeys.MAX_HEADER_BYTES_KEY,
        HttpConfigKeys.MAX_HEADER_BYTES_DEFAULT));
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
    InetSocketAddress bind = NetUtils.createSocketAddr(conf.get(HttpConfigKeys.ADDRESS_KEY,
        HttpConfigKeys.ADDRESS_DEFAULT));
    connector.setHost(bind.getHostString());
    connector.setPort(bind.getPort());
    connector.setIdleTimeout(HttpConfigKeys.idleTimeoutMs(conf));
    server.addConnector(connector);

    GatewaySecurity security = GatewaySecurity.start(conf, bind.getHostString());
    UserFileSystems users = new UserFileSystems(fs, conf, conf.getInt(HttpConfigKeys.USER_CACHE_KEY,
        HttpConfigKeys.USER_CACHE_DEFAULT), security::userFor);
    WebHdfsServlet servlet = new WebHdfsServlet(users, security, new DelegationOps(conf, users),
        new MetadataOps(conf.getInt(HttpConfigKeys.LIST_BATCH_KEY, HttpConfigKeys.LIST_BATCH_DEFAULT)),
        new DataOps(conf.getInt(HttpConfigKeys.COPY_BUFFER_KEY, HttpConfigKeys.COPY_BUFFER_DEFAULT)),
        new Redirects(HttpConfigKeys.dataGateways(conf), fs.getAuthority()),
        conf.get(HttpConfigKeys.STATIC_USER_KEY, HttpConfigKeys.STATIC_USER_DEFAULT),
        conf.getInt(HttpConfigKeys.MAX_METADATA_BODY_BYTES_KEY, HttpConfigKeys.MAX_METADATA_BODY_BYTES_DEFAULT));
    ServletContextHandler context = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
    context.setContextPath("/");
    security.addFilter(context, conf, bind.getHostString());
    context.addServlet(new ServletHolder("webhdfs", servlet), RequestPath.PREFIX + "/*");
    JsonErrorHandler errors = new JsonErrorHandler();
    context.setErrorHandler(errors);
    server.setErrorHandler(errors);
    server.setHandler(context);
    server.setStopTimeout(5_000);
    try {
      server.start();
    } catch (Exception e) {
      users.close();
      stopQuietly(server);
      throw new IOException("the WebHDFS gateway could not start on " + bind + ": " + e.getMessage(), e);
    }
    WebHdfsGateway gateway = new WebHdfsGateway(server, connector, users);
    LOG.info("WebHDFS gateway for {} on {}{}", fs, gateway.uri(), HttpConfigKeys.dataGateways(conf).isEmpty()
        ? "" : ", data through " + HttpConfigKeys.dataGateways(conf));
    return gateway;
  }

  /** {@code http://host:port} of the gateway. */
  public URI uri() {
    String host = connector.getHost() == null || connector.getHost().equals("0.0.0.0") ? "127.0.0.1"
        : connector.getHost();
    return URI.create("http://" + host + ":" + connector.getLocalPort());
  }

  /** {@code host:port}, as {@code fffs.http.data-gateways} lists gateways. */
  public String hostPort() {
    return uri().getAuthority();
  }

  /** {@code webhdfs://host:port}: the URI Hadoop's {@code WebHdfsFileSystem} reaches this gateway by. */
  public URI webHdfsUri() {
    return URI.create("webhdfs://" + hostPort());
  }

  /** Users whose clients the gateway keeps open. */
  int openClients() {
    return users.size();
  }

  @Override
  public void close() throws IOException {
    stopQuietly(server);
    users.close();
  }

  private static void stopQuietly(Server server) {
    try {
      server.stop();
    } catch (Exception e) {
      LOG.warn("the WebHDFS gateway did not stop cleanly", e);
    }
  }
}
