package io.fffs.client.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FileVersion;
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
}
