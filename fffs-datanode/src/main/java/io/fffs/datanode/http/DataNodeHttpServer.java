package io.fffs.datanode.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fffs.common.json.JsonWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.hadoop.conf.ConfigRedactor;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DataNode's HTTP server ({@code fffs.datanode.http-address}): {@code /status} (JSON, {@link DataNodeStatus}),
 * {@code /jmx}, {@code /prom} (Prometheus text), {@code /conf} (the configuration as JSON, secrets redacted as
 * Hadoop's {@link ConfigRedactor} does) and {@code /logs} (the files of the log directory). Read-only, and on the
 * JDK's own HTTP server with two threads: a monitoring endpoint must not cost a DataNode start-up time or threads
 * it needs for data.
 */
public final class DataNodeHttpServer implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(DataNodeHttpServer.class);

  private final HttpServer server;
  private final ExecutorService threads;
  private final Configuration conf;
  private final Path logDir;
  private volatile DataNodeView node;

  private DataNodeHttpServer(HttpServer server, ExecutorService threads, Configuration conf, Path logDir) {
    this.server = server;
    this.threads = threads;
    this.conf = conf;
    this.logDir = logDir;
  }

  /** Binds {@code bind} and starts serving; pages answer 503 until {@link #serve} names the DataNode. */
  public static DataNodeHttpServer start(Configuration conf, InetSocketAddress bind) throws IOException {
    HttpServer server = HttpServer.create(bind, 16);
    ExecutorService threads = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "fffs-datanode-http");
      t.setDaemon(true);
      return t;
    });
    String logDir = System.getProperty("fffs.log.dir");
    DataNodeHttpServer http = new DataNodeHttpServer(server, threads, conf, logDir == null ? null
        : Paths.get(logDir));
    server.setExecutor(threads);
    server.createContext("/", http::handle);
    server.start();
    return http;
  }

  public void serve(DataNodeView view) {
    this.node = view;
  }

  /** The bound port. */
  public int port() {
    return server.getAddress().getPort();
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
        send(exchange, 405, "text/plain", "only GET\n");
        return;
      }
      DataNodeView view = node;
      URI uri = exchange.getRequestURI();
      String path = uri.getPath();
      if (view == null) {
        send(exchange, 503, "text/plain", "the DataNode is starting\n");
        return;
      }
      switch (path) {
        case "/", "/index.html" -> send(exchange, 200, "text/html; charset=utf-8", index(view));
        case "/status" -> send(exchange, 200, "application/json; charset=utf-8", DataNodeStatus.json(view));
        case "/prom" -> send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8",
            DataNodeStatus.prometheus(view));
        case "/jmx" -> send(exchange, 200, "application/json; charset=utf-8", JmxJson.render(query(uri, "qry")));
        case "/conf" -> send(exchange, 200, "application/json; charset=utf-8", configuration());
        default -> {
          if (path.equals("/logs") || path.startsWith("/logs/")) {
            logs(exchange, path.substring("/logs".length()));
          } else {
            send(exchange, 404, "text/plain", "no page " + path + "; see /\n");
          }
        }
      }
    } catch (Exception e) {
      LOG.warn("DataNode HTTP request {} failed", exchange.getRequestURI(), e);
    }
  }

  private static String query(URI uri, String name) {
    String raw = uri.getQuery();
    if (raw == null) {
      return null;
    }
    for (String pair : raw.split("&")) {
      if (pair.startsWith(name + "=")) {
        return pair.substring(name.length() + 1);
      }
    }
    return null;
  }

  private String index(DataNodeView view) {
    String id = view.id().getDatanodeUuid();
    return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>FFFS DataNode " + id
        + "</title></head><body><h1>Freeze-Frame FS DataNode</h1><p>" + view.id().getHost() + ":"
        + view.id().getDataPort() + " · " + id + "</p><ul><li><a href=\"/status\">/status</a> (JSON)</li>"
        + "<li><a href=\"/jmx\">/jmx</a></li><li><a href=\"/prom\">/prom</a></li><li><a href=\"/conf\">/conf</a>"
        + "</li><li><a href=\"/logs/\">/logs</a></li></ul></body></html>\n";
  }

  private String configuration() {
    ConfigRedactor redactor = new ConfigRedactor(conf);
    Map<String, String> sorted = new TreeMap<>();
    for (Map.Entry<String, String> entry : conf) {
      sorted.put(entry.getKey(), redactor.redact(entry.getKey(), conf.get(entry.getKey())));
    }
    JsonWriter json = new JsonWriter().beginObject().beginObject("properties");
    sorted.forEach(json::field);
    return json.endObject().endObject().toString();
  }

  private void logs(HttpExchange exchange, String rest) throws IOException {
    if (logDir == null || !Files.isDirectory(logDir)) {
      send(exchange, 404, "text/plain", "no log directory (fffs.log.dir): this DataNode logs to its console\n");
      return;
    }
    String name = rest.startsWith("/") ? rest.substring(1) : rest;
    if (name.isEmpty()) {
      StringBuilder page = new StringBuilder("<!DOCTYPE html><html><body><h1>Logs</h1><ul>");
      try (DirectoryStream<Path> files = Files.newDirectoryStream(logDir)) {
        for (Path file : files) {
          if (Files.isRegularFile(file)) {
            String fileName = file.getFileName().toString();
            page.append("<li><a href=\"/logs/").append(fileName).append("\">").append(fileName).append("</a> ")
                .append(Files.size(file)).append(" bytes</li>");
          }
        }
      }
      send(exchange, 200, "text/html; charset=utf-8", page.append("</ul></body></html>\n").toString());
      return;
    }
    // Only a plain name of a file in the log directory: no path may lead out of it.
    Path file = logDir.resolve(name).normalize();
    if (name.contains("/") || name.contains("\\") || !file.getParent().equals(logDir.normalize())
        || !Files.isRegularFile(file)) {
      send(exchange, 404, "text/plain", "no log file " + name + "\n");
      return;
    }
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(200, Files.size(file));
    try (OutputStream out = exchange.getResponseBody()) {
      Files.copy(file, out);
    }
  }

  private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
