package io.fffs.http;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Strict decoding of the raw request URI: percent escapes must be whole and the bytes valid UTF-8, so a malformed
 * URL is a {@code 400} that says what is wrong rather than a name nobody typed. The query is parsed here, never by
 * the servlet container, which would read a PUT's body as form parameters.
 */
final class UrlText {
  private UrlText() {}

  /** Percent-decodes {@code raw}; in a query ({@code plusIsSpace}) {@code +} is a space. */
  static String decode(String raw, boolean plusIsSpace, String what) throws FffsException {
    if (raw.indexOf('%') < 0 && (!plusIsSpace || raw.indexOf('+') < 0)) {
      return raw;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%') {
        int high = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
        int low = high < 0 ? -1 : Character.digit(raw.charAt(i + 2), 16);
        if (low < 0) {
          throw new FffsException(ErrorCode.INVALID_ARGUMENT, "malformed percent escape in the " + what + " at "
              + "character " + i + ": " + Printable.of(raw.substring(i, Math.min(raw.length(), i + 3)), 3));
        }
        bytes.write(high << 4 | low);
        i += 2;
      } else if (c == '+' && plusIsSpace) {
        bytes.write(' ');
      } else {
        byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        bytes.write(encoded, 0, encoded.length);
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
    } catch (CharacterCodingException e) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "the " + what + " is not valid UTF-8 once decoded");
    }
  }

  /**
   * The parameters of a raw query string, names lower-cased (WebHDFS names are case-insensitive); the first of
   * repeated names wins, as in HDFS.
   */
  static Map<String, String> parameters(String rawQuery) throws FffsException {
    Map<String, String> parameters = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return parameters;
    }
    for (String pair : rawQuery.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq), true, "query").toLowerCase(Locale.ROOT);
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1), true, "query");
      parameters.putIfAbsent(name, value);
    }
    return parameters;
  }
}
