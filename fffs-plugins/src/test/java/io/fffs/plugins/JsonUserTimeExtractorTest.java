package io.fffs.plugins;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.usertime.UserTimeExtractors;
import java.time.Instant;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class JsonUserTimeExtractorTest {
  private static final long T = 1_763_719_200_000_000L;

  @Nested
  class NumberInTs extends ExtractorContract {
    @Override
    String pluginName() {
      return "json";
    }

    @Override
    byte[] record(long micros, int i) {
      return ("{\"sensor\": \"s" + i + "\", \"ts\": " + micros / 1000 + ", \"v\": [1, {\"ts\": 0}]}\n").getBytes(UTF_8);
    }

    @Override
    byte[] badRecord() {
      return "{\"sensor\": \"s\", \"v\": 1}\n".getBytes(UTF_8);
    }

    @Override
    String badRecordProblem() {
      return "has no field \"ts\"";
    }
  }

  @Nested
  class IsoStringInAnotherField extends ExtractorContract {
    @Override
    String pluginName() {
      return "json:field=event time";
    }

    @Override
    byte[] record(long micros, int i) {
      return ("{\"nested\": {\"event time\": \"bogus\"}, \"event\\u0020time\": \""
          + Instant.ofEpochSecond(0, micros * 1000) + "\", \"i\": " + i + "}\r\n").getBytes(UTF_8);
    }

    @Override
    byte[] badRecord() {
      return "{\"event time\": \"2026-11-21T10:00:00Z\" \"x\": 1}\n".getBytes(UTF_8);
    }

    @Override
    String badRecordProblem() {
      return "is not a JSON object: expected ',' or '}' at byte 38 of the line, found '\"'";
    }
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"ts\": 1763719200000.25}                  | 1763719200000250",
      "{\"ts\": 1.7637192E12}                      | 1763719200000000",
      "{\"ts\": \"1763719200000\"}                 | 1763719200000000",
      "{\"ts\": \"2025-11-21T11:00:00.5+01:00\"}   | 1763719200500000",
      "  { \"a\" : [ ], \"b\":{}, \"ts\":0 , \"c\": null}  | 0",
      "{\"ts\": 1, \"ts\": 2}                      | 1000"})
  void readsNumbersAndStrings(String line, long micros) throws Exception {
    assertThat(ExtractorContract.extract(UserTimeExtractors.load("json").newStream(), (line + "\n").getBytes(UTF_8)))
        .containsExactly(micros);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"ts\": true}              | that is neither a number (epoch millis) nor a string",
      "{\"ts\": -1}                | -1 is before the epoch",
      "{\"ts\": 1e999999999}       | 1e999999999 is too far in the future",
      "{\"ts\": 1-2}               | '1-2' is not a number",
      "{\"ts\": \"yesterday\"}     | 'yesterday' is not epoch millis",
      "[1, 2]                      | expected an object at byte 0 of the line, found '['",
      "{\"ts\": 1} x               | found text after the object at byte 10",
      "{\"ts\": \"a\\qb\"}         | expected an escape",
      "{\"ts\": 1                  | expected ',' or '}' at byte 8 of the line, found the end of the line",
      "{\"x\": [[[[1]]]], \"ts\": tru}  | expected a value at byte 23"})
  void refusesBadLinesSayingWhy(String line, String problem) {
    assertThatThrownBy(() -> ExtractorContract.extract(UserTimeExtractors.load("json").newStream(),
        (line.strip() + "\n").getBytes(UTF_8)))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("at byte offset 0 of the block")
        .hasMessageContaining(problem);
  }

  @Test
  void deepNestingIsRefusedNotAStackOverflow() {
    String line = "{\"x\": " + "[".repeat(10_000) + "]".repeat(10_000) + ", \"ts\": 1}\n";

    assertThatThrownBy(() -> ExtractorContract.extract(UserTimeExtractors.load("json").newStream(),
        line.getBytes(UTF_8))).hasMessageContaining("nested deeper than 256");
  }

  @Test
  void aLineLongerThanTheLimitIsRefused() {
    byte[] bytes = ("{\"pad\": \"" + "x".repeat(JsonUserTimeExtractor.MAX_LINE_BYTES) + "\"}\n").getBytes(UTF_8);

    assertThatThrownBy(() -> ExtractorContract.extract(UserTimeExtractors.load("json").newStream(), bytes))
        .hasMessageContaining("is a line longer than 1048576 bytes");
  }

  @ParameterizedTest
  @ValueSource(strings = {"json:field=", "json:ts", "json:"})
  void badParametersAreAnInvalidArgument(String name) {
    assertThatThrownBy(() -> UserTimeExtractors.load(name))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("field=<name>");
  }
}
