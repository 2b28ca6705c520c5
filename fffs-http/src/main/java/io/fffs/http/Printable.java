package io.fffs.http;

/** Untrusted text made safe to echo in an error message: bounded, control characters escaped. */
final class Printable {
  private Printable() {}

  /** {@code text} in quotes, at most {@code max} characters of it, non-printable characters as {@code \\uXXXX}. */
  static String of(String text, int max) {
    if (text == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder("\"");
    int n = Math.min(text.length(), max);
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c == 0x7f || c == '"' || c == '\\' || Character.isSurrogate(c)) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append(text.length() > max ? "…\"" : "\"").toString();
  }
}
