package io.fffs.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.util.EnumSet;
import java.util.Map;

/**
 * Whatever a WebHDFS request carries — request path, query string, method, the {@code at} time, numbers, flags,
 * permissions, a delegation token — the gateway's parsing either yields a request that stays inside the file
 * system (no {@code .} or {@code ..} component, no control character, a path that round-trips through its URL form)
 * or refuses it with a typed error a client can act on; nothing else escapes. The harness parses in the servlet's
 * order ({@link WebHdfsServlet}) and then calls every typed getter. Fuzzed by {@code dev-support/fuzz.sh}.
 */
class HttpRequestFuzzTest {
  private static final String[] METHODS = {"GET", "PUT", "POST", "DELETE", "HEAD", "PATCH"};
  private static final EnumSet<ErrorCode> TYPED = EnumSet.of(ErrorCode.INVALID_ARGUMENT, ErrorCode.MALFORMED_TIME,
      ErrorCode.NOT_FOUND, ErrorCode.READ_ONLY_PAST, ErrorCode.UNSUPPORTED);

  @FuzzTest(maxDuration = "5m")
  void anyRequestParsesIntoAPathInsideTheFileSystemOrATypedRefusal(FuzzedDataProvider data) {
    String method = METHODS[data.consumeInt(0, METHODS.length - 1)];
    String query = data.consumeBoolean() ? null : data.consumeString(200);
    String uri = (data.consumeBoolean() ? RequestPath.PREFIX : "") + data.consumeRemainingAsString();
    try {
      Map<String, String> parameters = UrlText.parameters(query);
      WebHdfsOp op = WebHdfsOp.parse(parameters.get("op"), method);
      RequestPath path = RequestPath.parse(uri, parameters.get("at"));
      checkInside(path);
      UserFileSystems.checkUserName(parameters.getOrDefault("user.name", "nobody").isEmpty() ? "nobody"
          : parameters.getOrDefault("user.name", "nobody"));
      if (parameters.containsKey("delegation")) {
        GatewaySecurity.decode(parameters.get("delegation"));
      }
      Call call = new Call(op, path, "nobody", parameters);
      if (op.kind == WebHdfsOp.Kind.WRITE) {
        path.requirePresent(op.name());
      }
      call.longValue("offset", 0, 0);
      call.optionalLong("length", 0);
      call.longValue("buffersize", 4096, 1);
      call.bool("overwrite", false);
      call.bool("noredirect", false);
      call.replication((short) 3);
      call.permission((short) 0644);
      call.createFlags();
    } catch (FffsException e) {
      assertThat(e.code()).as("%s", e.getMessage()).isIn(TYPED);
    }
  }

  private static void checkInside(RequestPath path) throws FffsException {
    String plain = path.path.toUri().getPath();
    assertThat(plain).startsWith("/");
    for (String component : plain.split("/")) {
      assertThat(component).isNotIn(".", "..");
      assertThat(component.chars().noneMatch(c -> c < 0x20 || c == 0x7f)).as(plain).isTrue();
    }
    RequestPath again = RequestPath.parse(RequestPath.PREFIX + path.encoded(), null);
    assertThat(again.path).isEqualTo(path.path);
  }
}
