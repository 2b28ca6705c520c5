package io.fffs.plugins;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.usertime.UserTimeExtractor;
import java.util.function.LongConsumer;

/**
 * {@value #NAME}: text with one record per line ({@code \n}, or {@code \r\n}), whose first field — the text before
 * the first separator, or the whole line — is the record's user time: epoch milliseconds or an ISO-8601 time with a
 * zone (see {@link Timestamps}). Spaces and one pair of double quotes around the field are ignored; empty lines are
 * skipped. The separator is {@code ,} unless the file's plug-in name says otherwise: {@code text:sep=;},
 * {@code text:sep=\t} or {@code text:sep=tab}, {@code text:sep=space}. Only the first field is kept in memory, and
 * it may be at most {@value #MAX_FIELD_BYTES} bytes.
 */
public final class TextUserTimeExtractor implements UserTimeExtractor {
  public static final String NAME = "text";
  public static final char DEFAULT_SEPARATOR = ',';
  public static final int MAX_FIELD_BYTES = 64;

  private final char separator;

  public TextUserTimeExtractor() {
    this(DEFAULT_SEPARATOR);
  }

  private TextUserTimeExtractor(char separator) {
    this.separator = separator;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** {@code sep=<one ASCII character>}, where {@code \t} or {@code tab} is a tab and {@code space} a space. */
  @Override
  public UserTimeExtractor withParameters(String parameters) throws FffsException {
    if (!parameters.startsWith("sep=")) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "user-time plug-in " + NAME + " takes 'sep=<character>'"
          + " (" + NAME + ":sep=; or " + NAME + ":sep=tab), not '" + parameters + "'");
    }
    String value = parameters.substring("sep=".length());
    String sep = value.equals("\\t") || value.equals("tab") ? "\t" : value.equals("space") ? " " : value;
    if (sep.length() != 1 || sep.charAt(0) > 127 || sep.charAt(0) == '\n' || sep.charAt(0) == '\r') {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "user-time plug-in " + NAME + ":" + parameters
          + ": the separator must be one ASCII character other than a line end (or \\t, tab, space), not '"
          + value + "'");
    }
    return new TextUserTimeExtractor(sep.charAt(0));
  }

  public char separator() {
    return separator;
  }

  @Override
  public Stream newStream() {
    String label = separator == DEFAULT_SEPARATOR ? NAME : NAME + ":sep=" + (separator == '\t' ? "tab"
        : separator == ' ' ? "space" : String.valueOf(separator));
    return new TextStream(label, (byte) separator);
  }

  private static final class TextStream extends LineStream {
    private final byte separator;

    TextStream(String label, byte separator) {
      super(label, MAX_FIELD_BYTES);
      this.separator = separator;
    }

    private TextStream(TextStream other) {
      super(other);
      this.separator = other.separator;
    }

    @Override
    boolean wantsMore(byte[] line, int length, byte b) {
      return b != separator;
    }

    @Override
    String tooLong(int maxKept) {
      return "has a first field longer than " + maxKept + " bytes, so it is not a timestamp (is the separator '"
          + (char) separator + "' right?)";
    }

    @Override
    long timeOfLine(byte[] line, int length, long lineStart) throws FffsException {
      String field = text(line, 0, length).strip();
      if (field.length() >= 2 && field.startsWith("\"") && field.endsWith("\"")) {
        field = field.substring(1, field.length() - 1).strip();
      }
      if (field.isEmpty()) {
        throw badRecord(lineStart, "has an empty first field; expected " + Timestamps.FORMS);
      }
      try {
        return Timestamps.parseMicros(field);
      } catch (IllegalArgumentException e) {
        throw badRecord(lineStart, "has first field " + e.getMessage());
      }
    }

    @Override
    public Stream copy() {
      return new TextStream(this);
    }
  }
}
