package io.fffs.minicluster.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A bare HTTP client for the gateway tests: one request at a time, redirects not followed, JSON parsed. */
final class WebHdfs {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private final URI base;

  WebHdfs(URI base) {
    this.base = base;
  }

  /** {@code METHOD /webhdfs/v1<path>?<query>} to the gateway; {@code body} may be null. */
  HttpResponse<byte[]> send(String method, String path, String query, byte[] body) {
    return sendTo(URI.create(base + "/webhdfs/v1" + path + "?" + query), method, body);
  }

  HttpResponse<byte[]> sendTo(URI url, String method, byte[] body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(60))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(body));
    try {
      return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Both steps of a two-step op: the gateway's 307, then the data gateway it names. */
  HttpResponse<byte[]> twoStep(String method, String path, String query, byte[] body) {
    HttpResponse<byte[]> first = send(method, path, query, null);
    assertThat(first.statusCode()).as(new String(first.body())).isEqualTo(307);
    URI location = URI.create(first.headers().firstValue("Location").orElseThrow());
    return sendTo(location, method, body);
  }

  static JsonNode json(HttpResponse<byte[]> response) {
    assertThat(response.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    try {
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The {@code RemoteException} of an error answer, after checking its status. */
  static JsonNode error(HttpResponse<byte[]> response, int status) {
    assertThat(response.statusCode()).as(new String(response.body())).isEqualTo(status);
    JsonNode remote = json(response).get("RemoteException");
    assertThat(remote).as(new String(response.body())).isNotNull();
    assertThat(remote.get("message").asText()).doesNotContain("\tat ").doesNotContain("at io.fffs.");
    return remote;
  }
}
