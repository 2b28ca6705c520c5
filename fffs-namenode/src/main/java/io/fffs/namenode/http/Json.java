package io.fffs.namenode.http;

/** A small JSON writer for the status page: objects, arrays, strings, numbers, booleans. */
final class Json {
  private final StringBuilder out = new StringBuilder();
  private boolean needComma;

  Json beginObject() {
    comma();
    out.append('{');
    needComma = false;
    return this;
  }

  Json endObject() {
    out.append('}');
    needComma = true;
    return this;
  }

  Json beginArray(String name) {
    name(name);
    out.append('[');
    needComma = false;
    return this;
  }

  Json endArray() {
    out.append(']');
    needComma = true;
    return this;
  }

  Json field(String name, String value) {
    name(name);
    if (value == null) {
      out.append("null");
    } else {
      string(value);
    }
    needComma = true;
    return this;
  }

  Json field(String name, long value) {
    name(name);
    out.append(value);
    needComma = true;
    return this;
  }

  Json field(String name, boolean value) {
    name(name);
    out.append(value);
    needComma = true;
    return this;
  }

  private void name(String name) {
    comma();
    string(name);
    out.append(':');
    needComma = false;
  }

  private void comma() {
    if (needComma) {
      out.append(',');
    }
  }

  private void string(String value) {
    out.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        default:
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
