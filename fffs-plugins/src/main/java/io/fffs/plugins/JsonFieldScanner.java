package io.fffs.plugins;

import java.nio.charset.StandardCharsets;

/**
 * Finds one top-level field of a JSON object held in bytes, checking the object's syntax on the way (RFC 8259, with
 * numbers checked only for their characters). Written by hand to keep the plug-in jar free of dependencies that could
 * clash with Hadoop's or Spark's on a DataNode's class path.
 */
final class JsonFieldScanner {
  /** A field's value: the text of a JSON string (unescaped) or number, or any other JSON value's kind. */
  record Value(Kind kind, String text) {}

  enum Kind { STRING, NUMBER, OTHER }

  private static final int MAX_DEPTH = 256;

  private final byte[] json;
  private final int end;
  private int i;

  private JsonFieldScanner(byte[] json, int end) {
    this.json = json;
    this.end = end;
  }

  /**
   * The value of top-level field {@code field} of the object in {@code json[0, end)} (the first, if it repeats), or
   * null if the object has no such field.
   *
   * @throws IllegalArgumentException saying what is wrong and at which byte of the text, if it is not one object
   */
  static Value find(byte[] json, int end, String field) {
    return new JsonFieldScanner(json, end).object(field);
  }

  private Value object(String field) {
    skipSpace();
    expect('{', "an object");
    Value found = null;
    skipSpace();
    if (peek() == '}') {
      i++;
    } else {
      while (true) {
        skipSpace();
        expect('"', "a field name");
        String name = string();
        skipSpace();
        expect(':', "':'");
        skipSpace();
        if (found == null && name.equals(field)) {
          found = value();
        } else {
          skip(1);
        }
        skipSpace();
        if (peek() == ',') {
          i++;
        } else {
          expect('}', "',' or '}'");
          break;
        }
      }
    }
    skipSpace();
    if (i < end) {
      throw new IllegalArgumentException("found text after the object at byte " + i + " of the line");
    }
    return found;
  }

  private Value value() {
    int c = peek();
    if (c == '"') {
      i++;
      return new Value(Kind.STRING, string());
    }
    if (c == '-' || c >= '0' && c <= '9') {
      int start = i;
      number();
      return new Value(Kind.NUMBER, new String(json, start, i - start, StandardCharsets.US_ASCII));
    }
    skip(1);
    return new Value(Kind.OTHER, null);
  }

  private void skip(int depth) {
    if (depth > MAX_DEPTH) {
      throw problem("values nested deeper than " + MAX_DEPTH);
    }
    int c = peek();
    if (c == '"') {
      i++;
      string();
    } else if (c == '-' || c >= '0' && c <= '9') {
      number();
    } else if (c == '{' || c == '[') {
      char close = c == '{' ? '}' : ']';
      i++;
      skipSpace();
      if (peek() == close) {
        i++;
        return;
      }
      while (true) {
        skipSpace();
        if (close == '}') {
          expect('"', "a field name");
          string();
          skipSpace();
          expect(':', "':'");
          skipSpace();
        }
        skip(depth + 1);
        skipSpace();
        if (peek() == ',') {
          i++;
        } else {
          expect(close, "',' or '" + close + "'");
          return;
        }
      }
    } else if (!literal("true") && !literal("false") && !literal("null")) {
      throw problem("a value");
    }
  }

  /** The rest of a string whose opening quote has been read, unescaped. */
  private String string() {
    StringBuilder text = new StringBuilder();
    int run = i;
    while (true) {
      if (i >= end) {
        throw problem("the end of a string");
      }
      int c = json[i] & 0xff;
      if (c == '"' || c == '\\') {
        text.append(new String(json, run, i - run, StandardCharsets.UTF_8));
        i++;
        if (c == '"') {
          return text.toString();
        }
        text.append(escape());
        run = i;
      } else if (c < 0x20) {
        throw problem("no control character in a string");
      } else {
        i++;
      }
    }
  }

  private char escape() {
    int c = i < end ? json[i++] : -1;
    switch (c) {
      case '"': return '"';
      case '\\': return '\\';
      case '/': return '/';
      case 'b': return '\b';
      case 'f': return '\f';
      case 'n': return '\n';
      case 'r': return '\r';
      case 't': return '\t';
      case 'u':
        if (i + 4 <= end) {
          try {
            char unit = (char) Integer.parseInt(new String(json, i, 4, StandardCharsets.US_ASCII), 16);
            i += 4;
            return unit;
          } catch (NumberFormatException e) {
            // reported below
          }
        }
        throw problem("four hex digits after \\u");
      default:
        i--;
        throw problem("an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
    }
  }

  private void number() {
    int start = i;
    while (i < end && "+-0123456789.eE".indexOf(json[i]) >= 0) {
      i++;
    }
    if (i == start) {
      throw problem("a number");
    }
  }

  private boolean literal(String word) {
    if (i + word.length() > end) {
      return false;
    }
    for (int k = 0; k < word.length(); k++) {
      if (json[i + k] != word.charAt(k)) {
        return false;
      }
    }
    i += word.length();
    return true;
  }

  private int peek() {
    return i < end ? json[i] & 0xff : -1;
  }

  private void expect(char c, String what) {
    if (peek() != c) {
      throw problem(what);
    }
    i++;
  }

  private void skipSpace() {
    while (i < end && (json[i] == ' ' || json[i] == '\t' || json[i] == '\r' || json[i] == '\n')) {
      i++;
    }
  }

  private IllegalArgumentException problem(String expected) {
    String found = i >= end ? "the end of the line" : "'" + (char) (json[i] & 0xff) + "'";
    return new IllegalArgumentException("expected " + expected + " at byte " + i + " of the line, found " + found);
  }
}
