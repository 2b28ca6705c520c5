package io.fffs.common.time;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.apache.hadoop.fs.Path;

/** Properties of the path/time grammar over generated input, hostile input included. */
class TemporalPathPropertiesTest {
  /** Latest is 2255; keep generated times inside what a packed HLC can hold. */
  private static final long MAX_MICROS = HlcTimestamp.MAX_PHYSICAL_MICROS;

  @Provide
  Arbitrary<String> plainPaths() {
    Arbitrary<String> names = Arbitraries.strings().withCharRange('a', 'z').numeric().withChars('-', '_', '.')
        .ofMinLength(1).ofMaxLength(12).filter(n -> !n.equals(".") && !n.equals(".."));
    return names.list().ofMinSize(0).ofMaxSize(6).map(parts -> "/" + String.join("/", parts));
  }

  @Provide
  Arbitrary<TimeSpec> specs() {
    Arbitrary<Long> micros = Arbitraries.longs().between(0, MAX_MICROS);
    return Combinators.combine(micros, Arbitraries.of(true, false))
        .as((m, system) -> system ? TimeSpec.system(m) : TimeSpec.user(m));
  }

  @Property(tries = 500)
  void markersRoundTrip(@ForAll("specs") TimeSpec spec) throws FffsException {
    assertThat(TimeSpec.parse(spec.toMarker())).isEqualTo(spec);
  }

  @Property(tries = 500)
  void aPathWithAMarkerParsesBackToItsPlainPathAndTime(@ForAll("plainPaths") String plain,
      @ForAll("specs") TimeSpec spec) throws FffsException {
    Path withTime = TemporalPath.withTime(new Path(plain), spec);
    TemporalPath parsed = TemporalPath.parse(withTime);
    assertThat(parsed.timeSpec()).isEqualTo(spec);
    assertThat(parsed.plainPath()).isEqualTo(new Path(plain));
  }

  @Property(tries = 1000)
  void anythingAfterAnAtSignIsANameAMarkerOrMalformedTimeNeverACrash(@ForAll("plainPaths") String plain,
      @ForAll String suffix) {
    String text = (plain.equals("/") ? "/x" : plain) + "@" + suffix.replace('/', '_').replace(':', '_');
    Path path;
    try {
      path = new Path(text);
    } catch (IllegalArgumentException notAHadoopPath) {
      return;  // Hadoop's own Path refuses it before FFFS sees it
    }
    try {
      TemporalPath parsed = TemporalPath.parse(path);
      assertThat(parsed.plainPath()).isNotNull();
    } catch (FffsException e) {
      assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_TIME);
      assertThat(e.getMessage()).contains("accepted forms");
    }
  }

  @Property(tries = 500)
  void timeTextIsATimeOrMalformedTimeNeverACrash(@ForAll String text) {
    try {
      TimeSpec.parse(text);
    } catch (FffsException e) {
      assertThat(e.code()).isEqualTo(ErrorCode.MALFORMED_TIME);
    }
  }

  @Property(tries = 500)
  void millisFormsOfOneInstantAreEqual(@ForAll @LongRange(min = 0, max = 9_000_000_000_000L) long millis)
      throws FffsException {
    assertThat(TimeSpec.parse("s" + millis)).isEqualTo(TimeSpec.systemMillis(millis));
    assertThat(TimeSpec.parse("@u" + millis + ".000")).isEqualTo(TimeSpec.userMillis(millis));
  }

  @Provide
  Arbitrary<String> childNames() {
    return Arbitraries.strings().withCharRange('a', 'z').numeric()
        .withChars(' ', '%', '#', '?', '@', '+', '&', '=', '[', ']', '~', '!', '$', ',', ';', '\'', '(', ')', '*')
        .withChars('\u00e9', '\u6771', '\u00df').ofMinLength(1).ofMaxLength(10);
  }

  @Provide
  Arbitrary<String> parents() {
    return Arbitraries.of("/", "/a", "/a/b@s1700000000000", "/@s1/x", "fffs://127.0.0.1:8020/", "fffs://h:1/d",
        "fffs://h:1/t@s1700000000000.5/p", "fffs://h/sp ace/%25x", "rel", "rel/x y");
  }

  /** The fast child path is exactly the one Hadoop's {@code new Path(parent, name)} makes. */
  @Property(tries = 1000)
  void childIsHadoopsChild(@ForAll("parents") String parent, @ForAll("childNames") String name)
      throws FffsException {
    TemporalPath dir = TemporalPath.parse(new Path(parent));
    Path expected = new Path(dir.originalPath(), name);
    Path child = dir.child(name);
    assertThat(child).isEqualTo(expected);
    assertThat(child.toString()).isEqualTo(expected.toString());
    assertThat(child.toUri().getRawPath()).isEqualTo(expected.toUri().getRawPath());
  }
}
