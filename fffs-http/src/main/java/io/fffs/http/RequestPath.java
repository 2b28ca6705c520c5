package io.fffs.http;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TemporalPath;
import io.fffs.common.time.TimeSpec;
import java.util.Locale;
import org.apache.hadoop.fs.Path;

/**
 * The file-system path of a request and the time it is read at: the path after {@code /webhdfs/v1}, decoded, with
 * an optional time marker ({@code /sensors/cam7@s1763719200000}, the {@code @} escaped or not), or the time given
 * as {@code at=} (a marker, with or without {@code @}, or an ISO instant). Paths that could reach outside what they
 * name are refused: {@code .} and {@code ..} components, escaped slashes and backslashes, control characters.
 */
final class RequestPath {
  static final String PREFIX = "/webhdfs/v1";

  /** The path as the file system is asked: with the time's marker when a past time was asked. */
  final Path path;
  /** The path without a marker. */
  final Path plain;
  final TimeSpec time;

  private RequestPath(Path path, Path plain, TimeSpec time) {
    this.path = path;
    this.plain = plain;
    this.time = time;
  }

  /** Whether a past (or user-time) state is asked rather than the present. */
  boolean isPast() {
    return !time.isLatest();
  }

  /** The path of {@code rawUri} (undecoded, starting with {@link #PREFIX}), read at {@code at} if not null. */
  static RequestPath parse(String rawUri, String at) throws FffsException {
    if (!rawUri.startsWith(PREFIX) || (rawUri.length() > PREFIX.length() && rawUri.charAt(PREFIX.length()) != '/')) {
      throw new FffsException(ErrorCode.NOT_FOUND, "WebHDFS paths start with " + PREFIX + "/");
    }
    String raw = rawUri.substring(PREFIX.length());
    String lower = raw.toLowerCase(Locale.ROOT);
    if (lower.contains("%2f") || lower.contains("%5c") || raw.indexOf('\\') >= 0) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a path must not contain an escaped slash or a backslash: "
          + Printable.of(raw, 200));
    }
    String decoded = UrlText.decode(raw, false, "path");
    StringBuilder normal = new StringBuilder();
    for (String component : decoded.split("/")) {
      if (component.isEmpty()) {
        continue;
      }
      if (component.equals(".") || component.equals("..")) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a path must not contain '.' or '..' components: "
            + Printable.of(decoded, 200));
      }
      for (int i = 0; i < component.length(); i++) {
        if (component.charAt(i) < 0x20 || component.charAt(i) == 0x7f) {
          throw new FffsException(ErrorCode.INVALID_ARGUMENT, "a path must not contain control characters: "
              + Printable.of(decoded, 200));
        }
      }
      normal.append('/').append(component);
    }
    Path given = new Path(normal.length() == 0 ? "/" : normal.toString());
    TemporalPath temporal = TemporalPath.parse(given);
    if (at == null || at.isEmpty()) {
      return new RequestPath(temporal.originalPath(), temporal.plainPath(), temporal.timeSpec());
    }
    TimeSpec time = TimeSpec.parse(at);
    if (temporal.isTemporal() && !temporal.timeSpec().equals(time)) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "the path's marker " + temporal.markerText()
          + " and at=" + Printable.of(at, 64) + " name different times; give one");
    }
    return new RequestPath(time.isLatest() ? temporal.plainPath() : TemporalPath.withTime(temporal.plainPath(), time),
        temporal.plainPath(), time);
  }

  /** Refuses a change to a past state, in the words the Java client uses. */
  void requirePresent(String what) throws FffsException {
    if (isPast()) {
      throw new FffsException(ErrorCode.READ_ONLY_PAST, "cannot " + what + " " + path + ": " + time.toMarker()
          + " names a past state, which is read-only; " + what + " " + plain + " instead");
    }
  }

  /** The path as it goes in a URL: each component percent-encoded where needed. */
  String encoded() {
    return encode(path.toUri().getPath());
  }

  static String encode(String path) {
    StringBuilder out = new StringBuilder();
    for (byte b : path.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "/-._~@:".indexOf(c) >= 0) {
        out.append((char) c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
      }
    }
    return out.toString();
  }
}
