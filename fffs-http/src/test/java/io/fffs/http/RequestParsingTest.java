package io.fffs.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeSpec;
import java.io.FileNotFoundException;
import java.util.Map;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.junit.jupiter.api.Test;

/** Request paths, times, query parameters and error mapping, without a server. */
class RequestParsingTest {
  private static ErrorCode code(ThrowingRunnable run) {
    try {
      run.run();
    } catch (FffsException e) {
      return e.code();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("no error");
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  void aMarkerInThePathEscapedOrNotAndAtNameTheSameTime() throws Exception {
    RequestPath plain = RequestPath.parse("/webhdfs/v1/sensors/cam7", null);
    assertThat(plain.isPast()).isFalse();
    assertThat(plain.path.toString()).isEqualTo("/sensors/cam7");

    RequestPath marker = RequestPath.parse("/webhdfs/v1/sensors/cam7@s1763719200000", null);
    RequestPath escaped = RequestPath.parse("/webhdfs/v1/sensors/cam7%40s1763719200000", null);
    RequestPath at = RequestPath.parse("/webhdfs/v1/sensors/cam7", "s1763719200000");
    RequestPath iso = RequestPath.parse("/webhdfs/v1/sensors/cam7", "20251121T100000Z");
    assertThat(marker.time).isEqualTo(TimeSpec.systemMillis(1763719200000L)).isEqualTo(escaped.time)
        .isEqualTo(at.time).isEqualTo(iso.time);
    assertThat(at.path).isEqualTo(marker.path);
    assertThat(marker.plain.toString()).isEqualTo("/sensors/cam7");
    assertThat(RequestPath.parse("/webhdfs/v1/a@s5", "@s5").time).isEqualTo(TimeSpec.systemMillis(5));
    assertThat(code(() -> RequestPath.parse("/webhdfs/v1/a@s5", "s6"))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(code(() -> RequestPath.parse("/webhdfs/v1/a", "s12x"))).isEqualTo(ErrorCode.MALFORMED_TIME);
    assertThat(code(() -> RequestPath.parse("/webhdfs/v1/a@s12x", null))).isEqualTo(ErrorCode.MALFORMED_TIME);
  }

  @Test
  void pathsThatCouldReachElsewhereAreRefused() {
    for (String bad : new String[] {"/a/../b", "/a/%2e%2E/b", "/a%2Fb", "/a%2fb", "/a%5cb", "/a\\b", "/./a", "/a%00",
        "/a%0a", "/a%G0", "/a%", "/a%C3%28"}) {
      assertThat(code(() -> RequestPath.parse("/webhdfs/v1" + bad, null))).as(bad)
          .isEqualTo(ErrorCode.INVALID_ARGUMENT);
    }
    assertThat(code(() -> RequestPath.parse("/webhdfs/v1x/a", null))).isEqualTo(ErrorCode.NOT_FOUND);
  }

  @Test
  void pathsRoundTripThroughTheirUrlForm() throws Exception {
    for (String path : new String[] {"/a b/ü+&=?#%", "/x@s1000", "/", "/a:b/c"}) {
      RequestPath parsed = RequestPath.parse("/webhdfs/v1" + RequestPath.encode(path), null);
      assertThat(RequestPath.parse("/webhdfs/v1" + parsed.encoded(), null).path).isEqualTo(parsed.path);
    }
    assertThat(RequestPath.parse("/webhdfs/v1//a///b/", null).path.toString()).isEqualTo("/a/b");
  }

  @Test
  void writesToThePastSayWhatToDoInstead() throws Exception {
    FffsException refused = (FffsException) catchThrowable(() ->
        RequestPath.parse("/webhdfs/v1/t/f", "s1000").requirePresent("create"));
    assertThat(refused.code()).isEqualTo(ErrorCode.READ_ONLY_PAST);
    assertThat(refused.getMessage()).contains("/t/f@s1000").contains("create /t/f instead");
  }

  private static Throwable catchThrowable(ThrowingRunnable run) {
    try {
      run.run();
      return null;
    } catch (Throwable t) {
      return t;
    }
  }

  @Test
  void queriesDecodeStrictlyWithLowerCaseNamesAndTheFirstValueWins() throws Exception {
    Map<String, String> parameters = UrlText.parameters("OP=open&User.Name=a+b&op=MKDIRS&x&y=%41%2B");
    assertThat(parameters).containsEntry("op", "open").containsEntry("user.name", "a b").containsEntry("x", "")
        .containsEntry("y", "A+");
    assertThat(code(() -> UrlText.parameters("a=%4"))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(code(() -> UrlText.parameters("a=%FF"))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void typedParametersRefuseMalformedValues() throws Exception {
    Call call = new Call(WebHdfsOp.OPEN, RequestPath.parse("/webhdfs/v1/f", null), "u",
        UrlText.parameters("offset=12&length=%D9%A1&overwrite=TRUE&permission=1755&replication=40000&bad=x"));
    assertThat(call.longValue("offset", 0, 0)).isEqualTo(12);
    assertThat(call.longValue("missing", 7, 0)).isEqualTo(7);
    assertThat(code(() -> call.longValue("length", 0, 0))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(code(() -> call.longValue("bad", 0, 0))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(code(() -> call.longValue("offset", 0, 13))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(call.bool("overwrite", false)).isTrue();
    assertThat(call.permission((short) 0644).toShort()).isEqualTo((short) 01755);
    assertThat(code(() -> call.replication((short) 1))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(code(() -> WebHdfsOp.parse("frobnicate", "GET"))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(code(() -> WebHdfsOp.parse("open", "PUT"))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(WebHdfsOp.parse("liststatus_batch", "GET")).isEqualTo(WebHdfsOp.LISTSTATUS_BATCH);
    assertThat(code(() -> UserFileSystems.checkUserName("9lives"))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(UserFileSystems.checkUserName("svc_etl-2$")).isEqualTo("svc_etl-2$");
  }

  @Test
  void errorsCarryTheStatusAndTheTypeHadoopsClientRethrows() {
    RemoteError missing = RemoteError.of(new FffsException(ErrorCode.NOT_FOUND, "no /x"));
    assertThat(missing.status).isEqualTo(404);
    assertThat(missing.javaClassName).isEqualTo(FileNotFoundException.class.getName());
    assertThat(missing.toJson()).contains("\"exception\":\"FileNotFoundException\"")
        .contains("\"message\":\"NOT_FOUND: no /x\"").contains("\"code\":\"NOT_FOUND\"");
    assertThat(RemoteError.of(ErrorCode.ALREADY_EXISTS, "m").javaClassName)
        .isEqualTo(FileAlreadyExistsException.class.getName());
    assertThat(RemoteError.of(ErrorCode.READ_ONLY_PAST, "m").status).isEqualTo(403);
    assertThat(RemoteError.of(ErrorCode.TIME_IN_FUTURE, "m").status).isEqualTo(400);
    assertThat(RemoteError.of(new IllegalStateException("bug"))).isNull();
    assertThat(RemoteError.internal().toJson()).doesNotContain("IllegalStateException");
    assertThat(RemoteError.forStatus(431, "Request Header Fields Too Large").status).isEqualTo(431);
  }
}
