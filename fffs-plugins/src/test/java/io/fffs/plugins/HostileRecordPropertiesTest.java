package io.fffs.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.usertime.UserTimeExtractor;
import io.fffs.common.usertime.UserTimeExtractors;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Every shipped plug-in, fed arbitrary bytes split at arbitrary points: it yields user times or refuses with
 * {@code INVALID_ARGUMENT} — never another exception, never a hang.
 */
class HostileRecordPropertiesTest {
  @Provide
  Arbitrary<String> plugins() {
    return Arbitraries.of("ts64", "ts64:fixed=16", "text", "text:sep=;", "json", "json:field=when", "wave");
  }

  @Property(tries = 600)
  void arbitraryBytesAreTimesOrInvalidArgument(@ForAll("plugins") String plugin,
      @ForAll @Size(max = 600) byte[] bytes, @ForAll @IntRange(min = 1, max = 64) int pieceSize)
      throws FffsException {
    UserTimeExtractor.Stream stream = UserTimeExtractors.load(plugin).newStream();
    List<Long> times = new ArrayList<>();
    try {
      for (int at = 0; at < bytes.length; at += pieceSize) {
        stream.extract(ByteBuffer.wrap(bytes, at, Math.min(pieceSize, bytes.length - at)).slice(), times::add);
      }
    } catch (FffsException e) {
      assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
      assertThat(e.getMessage()).contains("offset");
    }
  }

  @Property(tries = 300)
  void textWithArbitraryLinesIsTimesOrInvalidArgument(@ForAll("plugins") String plugin,
      @ForAll @Size(max = 8) List<@net.jqwik.api.constraints.StringLength(max = 80) String> lines)
      throws FffsException {
    UserTimeExtractor.Stream stream = UserTimeExtractors.load(plugin).newStream();
    try {
      for (String line : lines) {
        stream.extract(ByteBuffer.wrap((line + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8)), t -> { });
      }
    } catch (FffsException e) {
      assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    }
  }
}
