package io.fffs.minicluster.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The WebHDFS gateways of a two-DataNode cluster over plain HTTP: the two-step data ops and their redirects to the
 * gateways beside the DataNodes, time travel by marker and by {@code at=}, and errors as WebHDFS has them.
 */
class WebHdfsGatewayTest {
  @TempDir
  static Path base;
  static MiniFffsCluster cluster;
  static FreezeFrameFileSystem fs;
  static WebHdfs http;

  @BeforeAll
  static void start() throws Exception {
    Configuration conf = new Configuration();
    conf.setLong("fffs.blocksize", 64 * 1024);
    cluster = MiniFffsCluster.builder().baseDir(base).conf(conf).numDataNodes(2).webHdfs().build();
    fs = cluster.getFileSystem();
    fs.setPermission(new org.apache.hadoop.fs.Path("/"), new org.apache.hadoop.fs.permission.FsPermission(
        (short) 0777));
    http = new WebHdfs(cluster.getWebHdfsURI());
  }

  @AfterAll
  static void stop() throws Exception {
    if (fs != null) {
      fs.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void createRedirectsToADataGatewayAndOpenReadsBack() {
    HttpResponse<byte[]> first = http.send("PUT", "/rw/a.txt", "op=CREATE&user.name=alice", null);
    assertThat(first.statusCode()).isEqualTo(307);
    URI location = URI.create(first.headers().firstValue("Location").orElseThrow());
    assertThat(location.getPort()).isIn(cluster.getDataGatewayURI(0).getPort(),
        cluster.getDataGatewayURI(1).getPort());
    assertThat(location.getQuery()).contains("namenoderpcaddress=").contains("user.name=alice");

    HttpResponse<byte[]> created = http.sendTo(location, "PUT", bytes("hello gateway"));
    assertThat(created.statusCode()).as(new String(created.body())).isEqualTo(201);

    HttpResponse<byte[]> read = http.twoStep("GET", "/rw/a.txt", "op=OPEN&user.name=alice&offset=6&length=4", null);
    assertThat(read.statusCode()).isEqualTo(200);
    assertThat(new String(read.body(), StandardCharsets.UTF_8)).isEqualTo("gate");

    JsonNode status = WebHdfs.json(http.send("GET", "/rw/a.txt", "op=GETFILESTATUS&user.name=alice", null))
        .get("FileStatus");
    assertThat(status.get("length").asLong()).isEqualTo(13);
    assertThat(status.get("owner").asText()).isEqualTo("alice");
    assertThat(status.get("type").asText()).isEqualTo("FILE");
    assertThat(status.get("permission").asText()).isEqualTo("644");
  }

  @Test
  void noRedirectAnswersTheLocationAsJson() {
    http.twoStep("PUT", "/nr/f", "op=CREATE&user.name=alice", bytes("x"));
    HttpResponse<byte[]> answer = http.send("GET", "/nr/f", "op=OPEN&user.name=alice&noredirect=true", null);
    assertThat(answer.statusCode()).isEqualTo(200);
    String location = WebHdfs.json(answer).get("Location").asText();
    assertThat(new String(http.sendTo(URI.create(location), "GET", null).body(), StandardCharsets.UTF_8))
        .isEqualTo("x");
  }

  @Test
  void readsThePastByMarkerEscapedOrNotAndByAt() throws Exception {
    http.twoStep("PUT", "/tt/log", "op=CREATE&user.name=alice", bytes("first;"));
    String marker = TimeSpec.system(fs.currentTime().physicalMicros()).toMarker();
    assertThat(http.twoStep("POST", "/tt/log", "op=APPEND&user.name=alice", bytes("second;")).statusCode())
        .isEqualTo(200);

    assertThat(text(http.twoStep("GET", "/tt/log", "op=OPEN&user.name=alice", null))).isEqualTo("first;second;");
    assertThat(text(http.twoStep("GET", "/tt/log" + marker, "op=OPEN&user.name=alice", null))).isEqualTo("first;");
    assertThat(text(http.twoStep("GET", "/tt/log" + marker.replace("@", "%40"), "op=OPEN&user.name=alice", null)))
        .isEqualTo("first;");
    assertThat(text(http.twoStep("GET", "/tt/log", "op=OPEN&user.name=alice&at=" + marker.substring(1), null)))
        .isEqualTo("first;");
    JsonNode past = WebHdfs.json(http.send("GET", "/tt", "op=LISTSTATUS&user.name=alice&at=" + marker.substring(1),
        null)).get("FileStatuses").get("FileStatus");
    assertThat(past).hasSize(1);
    assertThat(past.get(0).get("pathSuffix").asText()).isEqualTo("log");
    assertThat(past.get(0).get("length").asLong()).isEqualTo(6);

    JsonNode versions = WebHdfs.json(http.send("GET", "/tt/log", "op=GETVERSIONS&user.name=alice", null))
        .get("FileVersions").get("FileVersion");
    assertThat(versions.size()).isGreaterThanOrEqualTo(2);
    assertThat(versions.get(0).get("marker").asText()).startsWith("@s");
  }

  @Test
  void historyDiffListsWhatChangedBetweenTwoMoments() throws Exception {
    http.twoStep("PUT", "/hd/a", "op=CREATE&user.name=alice", bytes("one"));
    http.twoStep("PUT", "/hd/gone", "op=CREATE&user.name=alice", bytes("x"));
    String before = TimeSpec.system(fs.currentTime().physicalMicros()).toMarker();
    http.twoStep("POST", "/hd/a", "op=APPEND&user.name=alice", bytes("two"));
    http.twoStep("PUT", "/hd/new", "op=CREATE&user.name=alice", bytes("n"));
    String middle = TimeSpec.system(fs.currentTime().physicalMicros()).toMarker();
    http.send("DELETE", "/hd/gone", "op=DELETE&user.name=alice", null);

    JsonNode untilMiddle = WebHdfs.json(http.send("GET", "/hd" + before, "op=GETHISTORYDIFF&user.name=alice&to="
        + middle.substring(1), null)).get("HistoryDiff");
    assertThat(untilMiddle.get("from").asText()).isEqualTo(before);
    assertThat(kindsByPath(untilMiddle)).containsExactly("MODIFIED /hd/a 3->6", "CREATED /hd/new -1->1");
    JsonNode untilNow = WebHdfs.json(http.send("GET", "/hd", "op=GETHISTORYDIFF&user.name=alice&at="
        + before.substring(1), null)).get("HistoryDiff");
    assertThat(untilNow.get("to").asText()).isEqualTo("latest");
    assertThat(kindsByPath(untilNow)).containsExactly("MODIFIED /hd/a 3->6", "DELETED /hd/gone 1->-1",
        "CREATED /hd/new -1->1");
    JsonNode ranged = WebHdfs.json(http.send("GET", "/hd" + before, "op=GETHISTORYDIFF&user.name=alice&ranges=true&to="
        + middle.substring(1), null)).get("HistoryDiff").get("DiffEntry");
    assertThat(ranged.get(0).get("ranges").toString()).isEqualTo("[{\"offset\":3,\"length\":3}]");
    assertThat(ranged.get(1).has("ranges")).as("only modified files").isFalse();
    JsonNode writes = WebHdfs.json(http.send("GET", "/hd/a", "op=GETVERSIONS&writes=true&user.name=alice", null))
        .get("FileVersions").get("FileWrites");
    assertThat(writes.get("completeFrom").asLong()).isZero();
    java.util.List<String> written = new java.util.ArrayList<>();
    writes.get("FileWrite").forEach(w -> written.add(w.get("kind").asText() + " " + w.get("offset").asLong() + "+"
        + w.get("length").asLong()));
    assertThat(written).containsExactly("WRITE 0+3", "WRITE 3+3");
    JsonNode badTo = WebHdfs.error(http.send("GET", "/hd" + before, "op=GETHISTORYDIFF&user.name=alice&to=yesterday",
        null), 400);
    assertThat(badTo.get("code").asText()).isEqualTo("MALFORMED_TIME");
  }

  private static java.util.List<String> kindsByPath(JsonNode diff) {
    java.util.List<String> out = new java.util.ArrayList<>();
    for (JsonNode entry : diff.get("DiffEntry")) {
      out.add(entry.get("kind").asText() + " " + entry.get("path").asText() + " "
          + entry.get("lengthBefore").asLong() + "->" + entry.get("lengthAfter").asLong());
    }
    return out;
  }

  @Test
  void writesToThePastAreForbiddenAndTheFutureIsAnError() throws Exception {
    http.twoStep("PUT", "/past/f", "op=CREATE&user.name=alice", bytes("v1"));
    String marker = TimeSpec.system(fs.currentTime().physicalMicros()).toMarker();

    JsonNode byMarker = WebHdfs.error(http.send("PUT", "/past/f" + marker, "op=CREATE&user.name=alice", null), 403);
    assertThat(byMarker.get("code").asText()).isEqualTo("READ_ONLY_PAST");
    JsonNode byAt = WebHdfs.error(http.send("PUT", "/past/g", "op=MKDIRS&user.name=alice&at=" + marker.substring(1),
        null), 403);
    assertThat(byAt.get("message").asText()).startsWith("READ_ONLY_PAST: ");
    JsonNode delete = WebHdfs.error(http.send("DELETE", "/past/f" + marker, "op=DELETE&user.name=alice", null),
        403);
    assertThat(delete.get("code").asText()).isEqualTo("READ_ONLY_PAST");

    long hourAhead = System.currentTimeMillis() + 3_600_000;
    JsonNode future = WebHdfs.error(http.send("GET", "/past/f@s" + hourAhead, "op=GETFILESTATUS&user.name=alice",
        null), 400);
    assertThat(future.get("message").asText()).startsWith("TIME_IN_FUTURE: ");
  }

  @Test
  void errorsAreWebHdfsJsonWithTheirStatus() {
    JsonNode missing = WebHdfs.error(http.send("GET", "/no/such", "op=GETFILESTATUS&user.name=alice", null), 404);
    assertThat(missing.get("exception").asText()).isEqualTo("FileNotFoundException");
    assertThat(missing.get("javaClassName").asText()).isEqualTo("java.io.FileNotFoundException");
    assertThat(WebHdfs.error(http.send("GET", "/no/such", "op=OPEN&user.name=alice", null), 404)
        .get("code").asText()).isEqualTo("NOT_FOUND");

    JsonNode unknown = WebHdfs.error(http.send("GET", "/", "op=FROBNICATE", null), 400);
    assertThat(unknown.get("message").asText()).contains("Invalid value for webhdfs parameter \\\"op\\\"".replace(
        "\\\"", "\""));
    WebHdfs.error(http.send("GET", "/", "", null), 400);
    WebHdfs.error(http.send("PUT", "/", "op=GETFILESTATUS", null), 400);
    WebHdfs.error(http.send("GET", "/x", "op=OPEN&offset=-1", null), 400);
    WebHdfs.error(http.send("GET", "/x", "op=OPEN&length=abc", null), 400);
    WebHdfs.error(http.send("GET", "/a/%2e%2e/b", "op=GETFILESTATUS", null), 400);
    WebHdfs.error(http.send("GET", "/a%2Fb", "op=GETFILESTATUS", null), 400);
    WebHdfs.error(http.send("GET", "/a", "op=GETFILESTATUS&user.name=1bad%20user", null), 400);
    WebHdfs.error(http.send("GET", "/a@s12x", "op=GETFILESTATUS", null), 400);
    WebHdfs.error(http.sendTo(URI.create(cluster.getWebHdfsURI() + "/elsewhere"), "GET", null), 404);
  }

  @Test
  void metadataOpsChangeTheNamespaceAsTheUser() throws Exception {
    assertThat(WebHdfs.json(http.send("PUT", "/md/dir", "op=MKDIRS&user.name=bob&permission=700", null))
        .get("boolean").asBoolean()).isTrue();
    http.twoStep("PUT", "/md/dir/f", "op=CREATE&user.name=bob", bytes("0123456789"));
    assertThat(WebHdfs.json(http.send("PUT", "/md/dir/f", "op=RENAME&user.name=bob&destination=/md/dir/g", null))
        .get("boolean").asBoolean()).isTrue();
    assertThat(WebHdfs.json(http.send("POST", "/md/dir/g", "op=TRUNCATE&user.name=bob&newlength=4", null))
        .get("boolean").asBoolean()).isTrue();
    assertThat(text(http.twoStep("GET", "/md/dir/g", "op=OPEN&user.name=bob", null))).isEqualTo("0123");
    assertThat(http.send("PUT", "/md/dir/g", "op=SETPERMISSION&user.name=bob&permission=600", null).statusCode())
        .isEqualTo(200);
    assertThat(fs.getFileStatus(new org.apache.hadoop.fs.Path("/md/dir/g")).getPermission().toShort())
        .isEqualTo((short) 0600);

    JsonNode denied = WebHdfs.error(http.send("GET", "/md/dir/g", "op=GETFILESTATUS&user.name=carol", null), 403);
    assertThat(denied.get("exception").asText()).isEqualTo("AccessControlException");

    JsonNode summary = WebHdfs.json(http.send("GET", "/md", "op=GETCONTENTSUMMARY&user.name=bob", null))
        .get("ContentSummary");
    assertThat(summary.get("length").asLong()).isEqualTo(4);
    assertThat(summary.get("fileCount").asLong()).isEqualTo(1);
    assertThat(WebHdfs.json(http.send("GET", "/", "op=GETHOMEDIRECTORY&user.name=bob", null)).get("Path").asText())
        .isEqualTo("/user/bob");
    assertThat(WebHdfs.json(http.send("DELETE", "/md", "op=DELETE&user.name=bob&recursive=true", null))
        .get("boolean").asBoolean()).isTrue();
  }

  @Test
  void theGatewaysServeOnAfterTheNameNodeRestarts() throws Exception {
    http.twoStep("PUT", "/restart/before", "op=CREATE&user.name=alice", bytes("kept"));
    cluster.restartNameNode();
    // The gateways' clients still hold connections to the old NameNode; the first calls must not fail on them.
    assertThat(WebHdfs.json(http.send("GET", "/restart/before", "op=GETFILESTATUS&user.name=alice", null))
        .get("FileStatus").get("length").asLong()).isEqualTo(4);
    assertThat(http.twoStep("PUT", "/restart/after", "op=CREATE&user.name=alice", bytes("new")).statusCode())
        .isEqualTo(201);
    assertThat(text(http.twoStep("GET", "/restart/before", "op=OPEN&user.name=alice", null))).isEqualTo("kept");
  }

  @Test
  void hadoopsClientGetsChecksumsAndBlockLocations() throws Exception {
    byte[] content = new byte[200 * 1024];
    new java.util.Random(7).nextBytes(content);
    http.twoStep("PUT", "/ck/a", "op=CREATE&user.name=alice", content);
    http.twoStep("PUT", "/ck/b", "op=CREATE&user.name=alice", content);
    content[100_000] ^= 1;
    http.twoStep("PUT", "/ck/c", "op=CREATE&user.name=alice", content);
    try (org.apache.hadoop.fs.FileSystem webhdfs = org.apache.hadoop.fs.FileSystem.newInstance(
        cluster.getWebHdfsFileSystemURI(), cluster.getConfiguration())) {
      org.apache.hadoop.fs.FileChecksum a = webhdfs.getFileChecksum(new org.apache.hadoop.fs.Path("/ck/a"));
      assertThat(a.getAlgorithmName()).isEqualTo("MD5-of-128MD5-of-512CRC32C");
      assertThat(webhdfs.getFileChecksum(new org.apache.hadoop.fs.Path("/ck/b"))).isEqualTo(a);
      assertThat(webhdfs.getFileChecksum(new org.apache.hadoop.fs.Path("/ck/c"))).isNotEqualTo(a);
      assertThat(fs.getFileChecksum(new org.apache.hadoop.fs.Path("/ck/a"))).as("what fffs:// gives").isEqualTo(a);

      org.apache.hadoop.fs.FileStatus status = webhdfs.getFileStatus(new org.apache.hadoop.fs.Path("/ck/a"));
      org.apache.hadoop.fs.BlockLocation[] blocks = webhdfs.getFileBlockLocations(status, 0, status.getLen());
      assertThat(blocks).hasSize(4);  // 200 KiB in 64 KiB blocks
      assertThat(blocks[3].getOffset()).isEqualTo(3 * 64 * 1024);
      assertThat(blocks[3].getLength()).isEqualTo(8 * 1024);
      // Replication 3 capped by the two DataNodes: each block has a replica on each, both on this host.
      assertThat(blocks[0].getHosts()).containsExactly("127.0.0.1", "127.0.0.1");
      assertThat(blocks[0].getNames()).doesNotHaveDuplicates();
    }
  }

  @Test
  void hadoopsClientGetsServerDefaultsStatusAndTrashRootAndHearsWhatFffsDoesNotHave() throws Exception {
    http.twoStep("PUT", "/un/a", "op=CREATE&user.name=alice", bytes("a"));
    http.twoStep("PUT", "/un/b", "op=CREATE&user.name=alice", bytes("b"));
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path("/un");
    org.apache.hadoop.fs.Path a = new org.apache.hadoop.fs.Path("/un/a");
    try (org.apache.hadoop.fs.FileSystem webhdfs = org.apache.hadoop.fs.FileSystem.newInstance(
        cluster.getWebHdfsFileSystemURI(), cluster.getConfiguration())) {
      org.apache.hadoop.fs.FsServerDefaults defaults = webhdfs.getServerDefaults(dir);
      org.apache.hadoop.fs.FsServerDefaults direct = fs.getServerDefaults(dir);
      assertThat(defaults.getBlockSize()).isEqualTo(direct.getBlockSize());
      assertThat(defaults.getReplication()).isEqualTo(direct.getReplication());
      assertThat(defaults.getBytesPerChecksum()).isEqualTo(512);
      assertThat(defaults.getChecksumType()).isEqualTo(org.apache.hadoop.util.DataChecksum.Type.CRC32C);
      org.apache.hadoop.fs.FsStatus status = webhdfs.getStatus(dir);
      assertThat(status.getCapacity()).isPositive().isEqualTo(fs.getStatus(dir).getCapacity());
      String user = org.apache.hadoop.security.UserGroupInformation.getCurrentUser().getShortUserName();
      assertThat(webhdfs.getTrashRoot(a).toUri().getPath()).isEqualTo("/user/" + user + "/.Trash");

      java.util.List<org.assertj.core.api.ThrowableAssert.ThrowingCallable> refused = java.util.List.of(
          () -> webhdfs.concat(a, new org.apache.hadoop.fs.Path[] {new org.apache.hadoop.fs.Path("/un/b")}),
          () -> webhdfs.getXAttrs(a),
          () -> webhdfs.setXAttr(a, "user.k", bytes("v")),
          () -> webhdfs.removeXAttr(a, "user.k"),
          () -> webhdfs.getAclStatus(a),
          () -> webhdfs.createSnapshot(dir, "s1"),
          () -> webhdfs.deleteSnapshot(dir, "s1"));
      for (org.assertj.core.api.ThrowableAssert.ThrowingCallable call : refused) {
        org.assertj.core.api.Assertions.assertThatThrownBy(call).isInstanceOf(UnsupportedOperationException.class)
            .hasMessageContaining("UNSUPPORTED");
      }
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> webhdfs.createSnapshot(dir, "s1"))
          .hasMessageContaining("every moment is readable").hasMessageContaining("pin");
      assertThat(fs.getFileStatus(a).getLen()).as("nothing changed").isEqualTo(1);
    }
    JsonNode error = WebHdfs.error(http.send("GET", "/un", "op=GETSNAPSHOTDIFF&oldsnapshotname=a&snapshotname=b"
        + "&user.name=alice", null), 400);
    assertThat(error.get("code").asText()).isEqualTo("UNSUPPORTED");
    assertThat(error.get("javaClassName").asText()).isEqualTo("java.lang.UnsupportedOperationException");
  }

  private static String text(HttpResponse<byte[]> response) {
    assertThat(response.statusCode()).as(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    return new String(response.body(), StandardCharsets.UTF_8);
  }
}
