package io.fffs.minicluster.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.permission.FsPermission;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to the gateway: 10,000 malformed requests of every kind the issue names (unknown ops, missing and
 * malformed parameters, bad offsets and lengths, path traversal and escaped slashes, bad times and users,
 * oversized headers and bodies, requests that are not HTTP), each answered with a WebHDFS JSON error of the
 * expected status and no stack trace, the gateway serving good requests throughout; and slow clients, which
 * neither hold up others nor stay connected past the idle timeout.
 */
class WebHdfsFuzzTest {
  private static final int REQUESTS = 10_000;
  private static final long SEED = 20261126L;
  /** Long enough that a gateway which queued the good request behind the stalled ones would be seen to. */
  private static final long IDLE_TIMEOUT_MS = 3_000;

  @TempDir
  static Path base;
  static MiniFffsCluster cluster;
  static InetSocketAddress gateway;

  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    conf.set("fffs.http.idle-timeout", IDLE_TIMEOUT_MS + "ms");
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(1).webHdfs().build();
    try (FreezeFrameFileSystem fs = cluster.getFileSystem()) {
      fs.setPermission(new org.apache.hadoop.fs.Path("/"), new FsPermission((short) 0777));
      try (FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path("/f"))) {
        out.write("twelve bytes".getBytes(StandardCharsets.UTF_8));
      }
    }
    URI uri = cluster.getWebHdfsURI();
    gateway = new InetSocketAddress(uri.getHost(), uri.getPort());
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  /** A malformed request and the statuses it may get (a line that is not HTTP: 400, or 505 when it is 0.9). */
  private static final class Case {
    final String kind;
    final byte[] request;
    final Integer[] statuses;

    Case(String kind, byte[] request, Integer... statuses) {
      this.kind = kind;
      this.request = request;
      this.statuses = statuses;
    }
  }

  @Test
  void tenThousandMalformedRequestsGetJsonErrorsAndTheGatewayKeepsServing() throws Exception {
    Random random = new Random(SEED);
    List<Supplier<Case>> kinds = kinds(random);
    int[] counts = new int[kinds.size()];
    for (int i = 0; i < REQUESTS; i++) {
      int k = random.nextInt(kinds.size());
      counts[k]++;
      Case c = kinds.get(k).get();
      RawHttp.Response response = RawHttp.exchange(gateway, c.request);
      String what = c.kind + " #" + i + ": " + new String(c.request, 0, Math.min(300, c.request.length),
          StandardCharsets.ISO_8859_1) + "\n -> " + response;
      assertThat(response.status).as(what).isIn((Object[]) c.statuses);
      assertThat(response.hasHeader("Content-Type", "application/json")).as(what).isTrue();
      JsonNode remote = response.json() == null ? null : response.json().get("RemoteException");
      assertThat(remote).as(what).isNotNull();
      assertThat(remote.path("exception").asText()).as(what).isNotEmpty();
      assertThat(remote.path("javaClassName").asText()).as(what).contains(".");
      assertThat(remote.path("message").asText()).as(what).isNotEmpty();
      assertThat(response.body()).as(what).doesNotContain("\tat ").doesNotContain(".java:").doesNotContain("<html");
      if (i % 500 == 0) {
        assertServes();
      }
    }
    assertThat(java.util.Arrays.stream(counts).min().getAsInt()).as("requests of the rarest kind").isPositive();
    assertServes();
  }

  /** A good request still gets its answer. */
  private static void assertServes() throws Exception {
    RawHttp.Response ok = RawHttp.exchange(gateway, request("GET", "/webhdfs/v1/f?op=GETFILESTATUS&user.name=u"));
    assertThat(ok.status).as(ok.toString()).isEqualTo(200);
    assertThat(ok.json().get("FileStatus").get("length").asLong()).isEqualTo(12);
  }

  @Test
  void slowClientsHoldUpNobodyAndAreCutOffAtTheIdleTimeout() throws Exception {
    List<Socket> slow = new ArrayList<>();
    try {
      // More stalled clients than the gateway has threads: half a request line, half the headers, half a body.
      for (int i = 0; i < 80; i++) {
        Socket socket = new Socket();
        socket.connect(gateway, 10_000);
        socket.setSoTimeout(20_000);
        String partial = i % 3 == 0 ? "GET /webhdfs/v1/f?op=GETFI"
            : i % 3 == 1 ? "GET /webhdfs/v1/f?op=GETFILESTATUS HTTP/1.1\r\nHost: x\r\nX-Slow: "
            : "PUT /webhdfs/v1/g?op=MKDIRS HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nonly a little";
        socket.getOutputStream().write(partial.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        slow.add(socket);
      }
      // A gateway whose threads the stalled clients held would answer only once the idle timeout freed them.
      long started = System.nanoTime();
      assertServes();
      assertThat((System.nanoTime() - started) / 1_000_000).as("ms for a good request among slow clients")
          .isLessThan(IDLE_TIMEOUT_MS);
      for (Socket socket : slow) {
        // The gateway closes each after its idle timeout; a read then ends within the socket timeout.
        InputStream in = socket.getInputStream();
        byte[] rest = RawHttp.readAll(in);
        assertThat(new String(rest, StandardCharsets.ISO_8859_1)).doesNotContain("\tat ");
      }
    } finally {
      for (Socket socket : slow) {
        socket.close();
      }
    }
    assertServes();
  }

  private static byte[] request(String method, String target) {
    return (method + " " + target + " HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] request(String method, String target, String extraHeaders, byte[] body) {
    byte[] head = (method + " " + target + " HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n" + extraHeaders
        + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[head.length + body.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(body, 0, all, head.length, body.length);
    return all;
  }

  private static String junk(Random random, int max) {
    String alphabet = "abcXYZ019-_.~!$'()*,;:@/?&=+%#[] \"<>\\^`{|}";
    StringBuilder out = new StringBuilder();
    for (int i = random.nextInt(max) + 1; i > 0; i--) {
      out.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return out.toString();
  }

  /** {@code text} percent-encoded byte by byte, so any junk makes a syntactically valid request target. */
  private static String escaped(String text) {
    StringBuilder out = new StringBuilder();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      out.append('%').append(String.format("%02X", b & 0xff));
    }
    return out.toString();
  }

  private static List<Supplier<Case>> kinds(Random random) {
    String[] numeric = {"offset", "length", "blocksize", "replication", "buffersize", "newlength",
        "modificationtime", "accesstime"};
    String[] numericOps = {"OPEN", "OPEN", "CREATE", "CREATE", "OPEN", "TRUNCATE", "SETTIMES", "SETTIMES"};
    String[] methods = {"GET", "GET", "PUT", "PUT", "GET", "POST", "PUT", "PUT"};
    String[] badNumbers = {"abc", "-5", "1e3", "99999999999999999999", "", "0x10", " 1", "+-1", "١٢"};
    List<Supplier<Case>> kinds = new ArrayList<>();
    kinds.add(() -> new Case("unknown op", request("GET", "/webhdfs/v1/f?op=" + escaped(junk(random, 20))
        + "&user.name=u"), 400));
    kinds.add(() -> new Case("missing op", request("GET", "/webhdfs/v1/f?user.name=u&" + escaped(junk(random, 8))
        + "=1"), 400));
    kinds.add(() -> {
      String[] wrong = {"PUT /webhdfs/v1/f?op=OPEN", "DELETE /webhdfs/v1/f?op=GETFILESTATUS",
          "GET /webhdfs/v1/f?op=MKDIRS", "POST /webhdfs/v1/f?op=CREATE", "PATCH /webhdfs/v1/f?op=OPEN"};
      String[] parts = wrong[random.nextInt(wrong.length)].split(" ");
      return new Case("method mismatch", request(parts[0], parts[1] + "&user.name=u"), 400);
    });
    kinds.add(() -> {
      int p = random.nextInt(numeric.length);
      String value = random.nextBoolean() ? badNumbers[random.nextInt(badNumbers.length)] : "x" + junk(random, 12);
      if (value.isEmpty() || numeric[p].equals("modificationtime") && value.equals("-5")
          || numeric[p].equals("accesstime") && value.equals("-5")) {
        value = "abc";
      }
      return new Case("malformed " + numeric[p], request(methods[p], "/webhdfs/v1/f?op=" + numericOps[p]
          + "&user.name=u&" + numeric[p] + "=" + escaped(value)), 400);
    });
    kinds.add(() -> {
      String[] params = {"overwrite=maybe", "recursive=yes", "noredirect=1", "createparent=nope",
          "permission=888", "permission=rwx", "permission=17777", "createflag=explode"};
      String[] ops = {"PUT /webhdfs/v1/n?op=CREATE", "DELETE /webhdfs/v1/n?op=DELETE", "GET /webhdfs/v1/f?op=OPEN",
          "PUT /webhdfs/v1/n?op=CREATE", "PUT /webhdfs/v1/n?op=MKDIRS", "PUT /webhdfs/v1/f?op=SETPERMISSION",
          "PUT /webhdfs/v1/n?op=MKDIRS", "PUT /webhdfs/v1/n?op=CREATE"};
      int p = random.nextInt(params.length);
      String[] parts = ops[p].split(" ");
      return new Case("malformed " + params[p], request(parts[0], parts[1] + "&user.name=u&" + params[p]), 400);
    });
    kinds.add(() -> {
      String[] missing = {"PUT /webhdfs/v1/f?op=RENAME", "POST /webhdfs/v1/f?op=TRUNCATE",
          "PUT /webhdfs/v1/f?op=SETOWNER", "PUT /webhdfs/v1/f?op=SETPERMISSION",
          "PUT /webhdfs/v1/f?op=RENAME&destination=relative/name"};
      String[] parts = missing[random.nextInt(missing.length)].split(" ");
      return new Case("missing parameter", request(parts[0], parts[1] + "&user.name=u"), 400);
    });
    kinds.add(() -> {
      String[] paths = {"/a/../etc/passwd", "/a/%2e%2e/b", "/a%2Fb", "/a%2fb/c", "/%2e/x", "/a/./b", "/a%5Cb",
          "/a\\b", "/a%00b", "/a%0Ab", "/a%G1", "/a%", "/a%C3%28", "/a%FF", "/..", "/a/%2E%2E"};
      String path = paths[random.nextInt(paths.length)];
      // Jetty resolves a literal ".." before routing: one that climbs out of /webhdfs/v1 never reaches it (404).
      return new Case("bad path " + path, request("GET", "/webhdfs/v1" + path + "?op=GETFILESTATUS&user.name=u"),
          path.equals("/..") ? new Integer[] {404} : new Integer[] {400});
    });
    kinds.add(() -> {
      String[] times = {"/f@s12x", "/f@s", "/f@u", "/f@2025-13-45T00:00:00Z", "/f@s1@s2", "/f@99", "/f@u12:00"};
      String[] ats = {"garbage", "s12x", "tomorrow", "2025-13-01T00:00:00Z", "@", "s-1", "u"};
      return random.nextBoolean()
          ? new Case("bad marker", request("GET", "/webhdfs/v1" + times[random.nextInt(times.length)]
              + "?op=GETFILESTATUS&user.name=u"), 400)
          : new Case("bad at", request("GET", "/webhdfs/v1/f?op=OPEN&user.name=u&at="
              + escaped(ats[random.nextInt(ats.length)])), 400);
    });
    kinds.add(() -> new Case("marker and at disagree", request("GET",
        "/webhdfs/v1/f@s1000?op=GETFILESTATUS&user.name=u&at=s2000"), 400));
    kinds.add(() -> {
      String[] users = {"1abc", "a b", "a/b", "..", "-x", "x".repeat(300), "a%00", "@"};
      return new Case("bad user", request("GET", "/webhdfs/v1/f?op=GETFILESTATUS&user.name="
          + escaped(users[random.nextInt(users.length)])), 400);
    });
    kinds.add(() -> {
      String[] writes = {"PUT /webhdfs/v1/f@s1000?op=CREATE", "PUT /webhdfs/v1/d@s1000?op=MKDIRS",
          "DELETE /webhdfs/v1/f@s1000?op=DELETE", "POST /webhdfs/v1/f?op=APPEND&at=s1000",
          "PUT /webhdfs/v1/f?op=RENAME&destination=/g@s1000"};
      String[] parts = writes[random.nextInt(writes.length)].split(" ");
      return new Case("write to the past", request(parts[0], parts[1] + "&user.name=u"), 403);
    });
    kinds.add(() -> new Case("oversized headers", request("GET", "/webhdfs/v1/f?op=GETFILESTATUS",
        "X-Big: " + "b".repeat(17 * 1024 + random.nextInt(8192)) + "\r\n", new byte[0]), 431));
    kinds.add(() -> {
      byte[] body = new byte[65 * 1024 + random.nextInt(64 * 1024)];
      random.nextBytes(body);
      return new Case("oversized body", request("PUT", "/webhdfs/v1/big?op=MKDIRS&user.name=u", "", body), 413);
    });
    kinds.add(() -> new Case("not HTTP", (junk(random, 40).replace("\r", "").replace("\n", "") + "\r\n\r\n")
        .getBytes(StandardCharsets.UTF_8), 400, 505));
    kinds.add(() -> new Case("not under /webhdfs/v1", request("GET", "/" + escaped(junk(random, 10))
        + "?op=GETFILESTATUS"), 404));
    kinds.add(() -> new Case("missing file", request("GET", "/webhdfs/v1/missing-" + random.nextInt(1000)
        + "?op=OPEN&user.name=u"), 404));
    return kinds;
  }
}
