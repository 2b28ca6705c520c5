package io.fffs.plugins;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.usertime.UserTimeExtractor;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * {@value #NAME}: JSON Lines — one JSON object per line ({@code \n}, or {@code \r\n}; empty lines are skipped) whose
 * top-level field {@value #DEFAULT_FIELD} holds the record's user time: a number is epoch milliseconds (a fraction
 * gives µs, below that is dropped), a string is whatever {@link Timestamps} reads (epoch millis or ISO-8601 with a
 * zone). Another field is chosen by the file's plug-in name: {@code json:field=eventTime}. A line is kept in memory
 * until its end, so lines may be at most {@value #MAX_LINE_BYTES} bytes.
 */
public final class JsonUserTimeExtractor implements UserTimeExtractor {
  public static final String NAME = "json";
  public static final String DEFAULT_FIELD = "ts";
  public static final int MAX_LINE_BYTES = 1 << 20;

  private final String field;

  public JsonUserTimeExtractor() {
    this(DEFAULT_FIELD);
  }

  private JsonUserTimeExtractor(String field) {
    this.field = field;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** {@code field=<top-level field name>}. */
  @Override
  public UserTimeExtractor withParameters(String parameters) throws FffsException {
    if (!parameters.startsWith("field=") || parameters.length() == "field=".length()) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "user-time plug-in " + NAME + " takes 'field=<name>' ("
          + NAME + ":field=eventTime), not '" + parameters + "'");
    }
    return new JsonUserTimeExtractor(parameters.substring("field=".length()));
  }

  public String field() {
    return field;
  }

  @Override
  public Stream newStream() {
    return new JsonStream(field.equals(DEFAULT_FIELD) ? NAME : NAME + ":field=" + field, field);
  }

  private static final class JsonStream extends LineStream {
    private final String field;

    JsonStream(String label, String field) {
      super(label, MAX_LINE_BYTES);
      this.field = field;
    }

    private JsonStream(JsonStream other) {
      super(other);
      this.field = other.field;
    }

    @Override
    String tooLong(int maxKept) {
      return "is a line longer than " + maxKept + " bytes";
    }

    @Override
    long timeOfLine(byte[] line, int length, long lineStart) throws FffsException {
      JsonFieldScanner.Value value;
      try {
        value = JsonFieldScanner.find(line, length, field);
      } catch (IllegalArgumentException e) {
        throw badRecord(lineStart, "is not a JSON object: " + e.getMessage());
      }
      if (value == null) {
        throw badRecord(lineStart, "has no field \"" + field + "\"");
      }
      if (value.kind() == JsonFieldScanner.Kind.OTHER) {
        throw badRecord(lineStart, "has field \"" + field + "\" that is neither a number (epoch millis) nor a"
            + " string (" + Timestamps.FORMS + ")");
      }
      try {
        return value.kind() == JsonFieldScanner.Kind.NUMBER ? millisToMicros(value.text())
            : Timestamps.parseMicros(value.text());
      } catch (IllegalArgumentException e) {
        throw badRecord(lineStart, "has field \"" + field + "\": " + e.getMessage());
      }
    }

    private static long millisToMicros(String number) {
      BigDecimal millis;
      try {
        millis = new BigDecimal(number);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'" + number + "' is not a number");
      }
      if (millis.signum() < 0) {
        throw new IllegalArgumentException(number + " is before the epoch");
      }
      // Checked before scaling, so that 1e999999999 is not expanded digit by digit.
      if (millis.precision() - millis.scale() > 15) {
        throw new IllegalArgumentException(number + " is too far in the future");
      }
      return millis.movePointRight(3).setScale(0, RoundingMode.FLOOR).longValueExact();
    }

    @Override
    public Stream copy() {
      return new JsonStream(this);
    }
  }
}
