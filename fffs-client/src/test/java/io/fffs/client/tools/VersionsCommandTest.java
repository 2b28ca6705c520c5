package io.fffs.client.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FileVersion;
import io.fffs.client.FileWrite;
import io.fffs.common.time.HlcTimestamp;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class VersionsCommandTest {
  private static List<FileVersion> versions(long... micros) {
    List<FileVersion> versions = new ArrayList<>();
    for (long m : micros) {
      versions.add(new FileVersion(HlcTimestamp.of(m, 0), m, "fsync", -1));
    }
    return versions;
  }

  @Test
  void fromToAndLimitKeepTheNewestVersionsWithinTheRange() {
    List<FileVersion> all = versions(10, 20, 30, 40, 50);
    assertThat(VersionsCommand.select(all, 20, 40, Integer.MAX_VALUE)).extracting(FileVersion::length)
        .containsExactly(20L, 30L, 40L);
    assertThat(VersionsCommand.select(all, Long.MIN_VALUE, Long.MAX_VALUE, 2)).extracting(FileVersion::length)
        .containsExactly(40L, 50L);
    assertThat(VersionsCommand.select(all, 41, 49, 3)).isEmpty();
  }

  @Test
  void writesAreListedAmongTheVersionsInHlcOrderAndTheLimitCountsBoth() {
    List<FileWrite> writes = List.of(
        new FileWrite(HlcTimestamp.of(15, 0), 0, FileWrite.Kind.WRITE, 0, 100),
        new FileWrite(HlcTimestamp.of(30, 0), 0, FileWrite.Kind.WRITE, 100, 5),
        new FileWrite(HlcTimestamp.of(60, 0), 0, FileWrite.Kind.TRUNCATE, 50, 0));
    List<String> lines = VersionsCommand.interleave(versions(10, 30, 50), writes, Integer.MAX_VALUE);
    assertThat(lines).hasSize(6);
    assertThat(lines.get(0)).endsWith("\t10\tfsync");
    assertThat(lines.get(1)).contains("write [0, 100)\t100 bytes");
    assertThat(lines.get(2)).endsWith("\t30\tfsync");
    assertThat(lines.get(3)).contains("write [100, 105)");
    assertThat(lines.get(5)).contains("truncate at 50").doesNotContain("user");
    assertThat(VersionsCommand.interleave(versions(10, 30, 50), writes, 2))
        .containsExactlyElementsOf(lines.subList(4, 6));
  }
}
