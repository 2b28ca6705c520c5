package io.fffs.common.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GenericArgsTest {
  @TempDir
  Path dir;

  @Test
  void definitionsAreTakenFromAnyPositionInBothForms() {
    Configuration conf = new Configuration(false);
    String[] rest = GenericArgs.apply(conf, new String[] {"--datanodes", "2", "-D", "fffs.transport=ucx",
        "--dir", "/x", "-Dfffs.a=b=c"});
    assertThat(rest).containsExactly("--datanodes", "2", "--dir", "/x");
    assertThat(conf.get("fffs.transport")).isEqualTo("ucx");
    assertThat(conf.get("fffs.a")).isEqualTo("b=c");
  }

  @Test
  void aDoubleDashEndsTheOptionsAndIsDropped() {
    Configuration conf = new Configuration(false);
    String[] rest = GenericArgs.apply(conf, new String[] {"-D", "k=v", "-ls", "--", "-D", "x=y"});
    assertThat(rest).containsExactly("-ls", "-D", "x=y");
    assertThat(conf.get("k")).isEqualTo("v");
    assertThat(conf.get("x")).isNull();
  }

  @Test
  void fsAndConfAreGenericToo() throws Exception {
    Path site = dir.resolve("extra.xml");
    Files.writeString(site, "<configuration><property><name>from.file</name><value>yes</value></property>"
        + "</configuration>");
    Configuration conf = new Configuration(false);
    String[] rest = GenericArgs.apply(conf, new String[] {"-report", "-fs", "fffs://nn:8020", "-conf",
        site.toString()});
    assertThat(rest).containsExactly("-report");
    assertThat(conf.get("fs.defaultFS")).isEqualTo("fffs://nn:8020");
    assertThat(conf.get("from.file")).isEqualTo("yes");
  }

  @Test
  void hoistKeepsTheOrderOfBoth() {
    assertThat(GenericArgs.hoist(new String[] {"-ls", "-Da=1", "/p", "-D", "b=2"}))
        .containsExactly("-Da=1", "-D", "b=2", "-ls", "/p");
  }

  @Test
  void malformedOptionsAreRefusedNotIgnored() {
    assertThatThrownBy(() -> GenericArgs.apply(new Configuration(false), new String[] {"-D", "novalue"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key=value");
    assertThatThrownBy(() -> GenericArgs.apply(new Configuration(false), new String[] {"-Dnovalue"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("novalue");
    assertThatThrownBy(() -> GenericArgs.apply(new Configuration(false), new String[] {"x", "-D"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs a value");
  }
}
