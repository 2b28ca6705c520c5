package io.fffs.common.json;

/**
 * A small JSON writer for the daemons' status pages and HTTP answers (objects, arrays, strings, numbers, booleans),
 * so that fffs-common needs no JSON library.
 */
public final class JsonWriter {
  private final StringBuilder out = new StringBuilder();
  private boolean first = true;

  public JsonWriter beginObject() {
    separate();
    out.append('{');
    first = true;
    return this;
  }

  public JsonWriter endObject() {
    out.append('}');
    first = false;
    return this;
  }

  public JsonWriter beginArray(String name) {
    name(name);
    out.append('[');
    first = true;
    return this;
  }

  public JsonWriter endArray() {
    out.append(']');
    first = false;
    return this;
  }

  public JsonWriter beginObject(String name) {
    name(name);
    out.append('{');
    first = true;
    return this;
  }

  public JsonWriter field(String name, String value) {
    name(name);
    if (value == null) {
      out.append("null");
    } else {
      string(value);
    }
    first = false;
    return this;
  }

  public JsonWriter field(String name, long value) {
    name(name);
    out.append(value);
    first = false;
    return this;
  }

  public JsonWriter field(String name, boolean value) {
    name(name);
    out.append(value);
    first = false;
    return this;
  }

  /** A value already in JSON form (a number, or a nested document). */
  public JsonWriter raw(String name, String json) {
    name(name);
    out.append(json);
    first = false;
    return this;
  }

  private void name(String name) {
    separate();
    string(name);
    out.append(':');
  }

  private void separate() {
    if (!first) {
      out.append(',');
    }
    first = true;
  }

  private void string(String value) {
    out.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
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
