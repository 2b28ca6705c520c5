package io.fffs.bench.http;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The load one benchmark contender gets, the same for both: WebHDFS requests from the JDK's HTTP client (HTTP/1.1,
 * kept-alive connections, each thread its own client), two-step data ops done as any client does them.
 */
final class WebHdfsLoad {
  private final URI base;
  private final String user;

  /** {@code base}: {@code http://host:port} of the contender's WebHDFS endpoint (its NameNode's or gateway's). */
  WebHdfsLoad(URI base, String user) {
    this.base = base;
    this.user = user;
  }

  static HttpClient newClient() {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(30)).build();
  }

  private URI url(String path, String query) {
    return URI.create(base + "/webhdfs/v1" + path + "?" + query + "&user.name=" + user);
  }

  private static HttpResponse<byte[]> send(HttpClient client, HttpRequest request) throws IOException {
    try {
      return client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  private static void expect(HttpResponse<?> response, int status, String what) throws IOException {
    if (response.statusCode() != status) {
      Object body = response.body();
      throw new IOException(what + ": HTTP " + response.statusCode() + " "
          + (body instanceof byte[] ? new String((byte[]) body) : ""));
    }
  }

  /** The data step's URL from the first step's 307. */
  private URI redirect(HttpClient client, String method, String path, String query) throws IOException {
    HttpResponse<byte[]> first = send(client, HttpRequest.newBuilder(url(path, query))
        .method(method, HttpRequest.BodyPublishers.noBody()).build());
    expect(first, 307, method + " " + path);
    return URI.create(first.headers().firstValue("Location").orElseThrow());
  }

  /** CREATE (overwriting) {@code path} with {@code data}; returns the nanoseconds both steps took. */
  long create(HttpClient client, String path, byte[] data) throws IOException {
    long start = System.nanoTime();
    URI location = redirect(client, "PUT", path, "op=CREATE&overwrite=true");
    HttpResponse<byte[]> created = send(client, HttpRequest.newBuilder(location)
        .header("Content-Type", "application/octet-stream")
        .PUT(HttpRequest.BodyPublishers.ofByteArray(data)).build());
    expect(created, 201, "CREATE " + path);
    return System.nanoTime() - start;
  }

  /** OPEN {@code path} and reads it to the end; returns the nanoseconds and checks the byte count. */
  long open(HttpClient client, String path, long expectedBytes) throws IOException {
    long start = System.nanoTime();
    URI location = redirect(client, "GET", path, "op=OPEN");
    HttpResponse<InputStream> read;
    try {
      read = client.send(HttpRequest.newBuilder(location).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    long total = 0;
    try (InputStream in = read.body()) {
      expect(read, 200, "OPEN " + path);
      byte[] buffer = new byte[1 << 20];
      for (int n; (n = in.read(buffer)) >= 0; ) {
        total += n;
      }
    }
    if (total != expectedBytes) {
      throw new IOException("OPEN " + path + " read " + total + " bytes, not " + expectedBytes);
    }
    return System.nanoTime() - start;
  }

  /** Metadata requests of one kind ({@code op} on {@code path}) from {@code threads} clients for a while: ops/s. */
  double rate(String op, String path, int threads, long millis) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      long deadline = System.nanoTime() + millis * 1_000_000L;
      List<Future<Long>> counts = new ArrayList<>();
      long start = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        counts.add(pool.submit((Callable<Long>) () -> {
          HttpClient client = newClient();
          HttpRequest request = HttpRequest.newBuilder(url(path, "op=" + op)).GET().build();
          long done = 0;
          while (System.nanoTime() < deadline) {
            expect(send(client, request), 200, op + " " + path);
            done++;
          }
          return done;
        }));
      }
      long total = 0;
      for (Future<Long> count : counts) {
        total += count.get();
      }
      return total / ((System.nanoTime() - start) / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Makes {@code count} empty files under {@code dir} for the listing measurement. */
  void populate(HttpClient client, String dir, int count) throws IOException {
    for (int i = 0; i < count; i++) {
      create(client, String.format("%s/f%04d", dir, i), new byte[0]);
    }
  }
}
