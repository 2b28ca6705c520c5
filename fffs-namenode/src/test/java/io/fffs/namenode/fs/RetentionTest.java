package io.fffs.namenode.fs;

import static io.fffs.namenode.fs.NamesystemFixture.ADMIN;
import static io.fffs.namenode.fs.NamesystemFixture.ALICE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.VersionProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.namespace.Pin;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Retention rules, pins and the horizon of reads, before and without garbage collection. */
class RetentionTest extends NamesystemTestBase {
  private static final long SECOND = 1_000_000L;

  private FileStatusProto info(String path, long micros) throws Exception {
    return nn.fs.queries.getFileInfo(ADMIN, path, TimeSpec.system(micros));
  }

  private static ErrorCode codeOf(Throwable e) {
    return ((FffsException) e).code();
  }

  @Test
  void aReadBeforeTheHorizonIsRefusedNamingTheHorizonAndTheRule() throws Exception {
    nn.fs.directories.mkdirs(ADMIN, "/logs", 0755, true).await();
    nn.fs.directories.mkdirs(ADMIN, "/other", 0755, true).await();
    nn.writeFile("/logs/a", 10);
    long old = nn.now();
    nn.advance(10 * SECOND);
    assertThat(info("/logs/a", old).getLength()).isEqualTo(10);

    nn.fs.history.setRetention(ADMIN, "/logs", RetentionRule.parse("5s")).await();
    long recent = nn.now() - 2 * SECOND;
    assertThat(info("/logs/a", recent).getLength()).isEqualTo(10);
    assertThatThrownBy(() -> info("/logs/a", old))
        .satisfies(e -> assertThat(codeOf(e)).isEqualTo(ErrorCode.HISTORY_EXPIRED))
        .hasMessageContaining("history horizon")
        .hasMessageContaining("'5s' (keep 5s) on /logs");
    assertThatThrownBy(() -> nn.fs.queries.getListing(ADMIN, "/logs", TimeSpec.system(old), "", 10))
        .hasMessageContaining("HISTORY_EXPIRED");
    assertThatThrownBy(() -> nn.fs.queries.getBlockLocations(ADMIN, "/logs/a", TimeSpec.system(old), 0, 10))
        .hasMessageContaining("HISTORY_EXPIRED");
    // Outside the rule's subtree the past stays readable: the default keeps everything.
    assertThat(info("/other", old)).isNotNull();
    assertThat(nn.fs.queries.getFileInfo(ADMIN, "/", TimeSpec.system(old))).isNotNull();
  }

  @Test
  void onlyTheSuperuserSetsRulesAndOnlyOnDirectories() throws Exception {
    nn.writeFile("/f", 1);
    assertThatThrownBy(() -> nn.fs.history.setRetention(ALICE, "/", RetentionRule.parse("1h")).await())
        .satisfies(e -> assertThat(codeOf(e)).isEqualTo(ErrorCode.ACCESS_DENIED));
    assertThatThrownBy(() -> nn.fs.history.setRetention(ADMIN, "/f", RetentionRule.parse("1h")).await())
        .satisfies(e -> assertThat(codeOf(e)).isEqualTo(ErrorCode.NOT_A_DIRECTORY));
  }

  @Test
  void aDeeperRuleWinsAndInheritingRestoresTheParents() throws Exception {
    nn.fs.directories.mkdirs(ADMIN, "/a/b", 0755, true).await();
    nn.fs.history.setRetention(ADMIN, "/a", RetentionRule.parse("1h")).await();
    nn.fs.history.setRetention(ADMIN, "/a/b", RetentionRule.parse("7d 3v")).await();
    HistoryOps.RetentionStatus deep = nn.fs.history.getRetention(ADMIN, "/a/b");
    assertThat(deep.rule()).isEqualTo(RetentionRule.parse("7d 3v"));
    assertThat(deep.setOn()).isEqualTo("/a/b");
    nn.fs.history.setRetention(ADMIN, "/a/b", null).await();
    HistoryOps.RetentionStatus inherited = nn.fs.history.getRetention(ADMIN, "/a/b");
    assertThat(inherited.rule()).isEqualTo(RetentionRule.parse("1h"));
    assertThat(inherited.setOn()).isEqualTo("/a");
    assertThat(inherited.ownRule()).isNull();
    assertThat(nn.fs.history.getRetention(ADMIN, "/").setOn()).isEmpty();
    // The rules have a history of their own: each change is a version of the directory.
    assertThat(nn.fs.queries.listVersions(ADMIN, "/a/b")).extracting(VersionProto::getChange)
        .contains("setRetention");
  }

  @Test
  void aPinKeepsItsMomentReadableBeyondTheHorizonUntilUnpinned() throws Exception {
    nn.writeFile("/d/f", 7);
    nn.advance(SECOND);
    long pinned = nn.now();
    nn.advance(SECOND);
    nn.writeFile("/d/f", 9);  // overwrite: another inode under the same name
    Pin pin = nn.fs.history.pin(ADMIN, "/d", TimeSpec.system(pinned), "before").await();
    assertThat(pin.path()).isEqualTo("/d");
    nn.fs.history.setRetention(ADMIN, "/d", RetentionRule.parse("1s")).await();
    nn.advance(60 * SECOND);

    assertThat(info("/d/f", pinned).getLength()).isEqualTo(7);
    assertThatThrownBy(() -> info("/d/f", pinned - 1)).hasMessageContaining("HISTORY_EXPIRED");
    assertThat(nn.fs.history.getPin(ADMIN, "before").micros()).isEqualTo(pinned);
    assertThat(nn.fs.history.listPins(ADMIN, "/")).extracting(Pin::name).containsExactly("before");
    assertThat(nn.fs.history.listPins(ADMIN, "/other")).isEmpty();
    assertThatThrownBy(() -> nn.fs.history.pin(ADMIN, "/d", TimeSpec.system(pinned), "before").await())
        .satisfies(e -> assertThat(codeOf(e)).isEqualTo(ErrorCode.ALREADY_EXISTS));

    nn.fs.history.unpin(ADMIN, "before").await();
    assertThatThrownBy(() -> info("/d/f", pinned)).hasMessageContaining("HISTORY_EXPIRED");
    assertThatThrownBy(() -> nn.fs.history.getPin(ADMIN, "before"))
        .satisfies(e -> assertThat(codeOf(e)).isEqualTo(ErrorCode.NOT_FOUND));
  }

  @Test
  void aMomentAlreadyBeyondTheHorizonCannotBePinned() throws Exception {
    nn.writeFile("/d/f", 7);
    long old = nn.now();
    nn.fs.history.setRetention(ADMIN, "/d", RetentionRule.parse("1s")).await();
    nn.advance(10 * SECOND);
    assertThatThrownBy(() -> nn.fs.history.pin(ADMIN, "/d", TimeSpec.system(old), "late").await())
        .satisfies(e -> assertThat(codeOf(e)).isEqualTo(ErrorCode.HISTORY_EXPIRED));
    assertThatThrownBy(() -> nn.fs.history.pin(ADMIN, "/d", TimeSpec.latest(), "bad name").await())
        .satisfies(e -> assertThat(codeOf(e)).isEqualTo(ErrorCode.MALFORMED_TIME));
  }

  @Test
  void theNewestVersionsAndTierMomentsOfARuleStayReadable() throws Exception {
    long[] moments = new long[5];
    for (int i = 0; i < moments.length; i++) {
      nn.writeFile("/v/f", 100 + i);
      moments[i] = nn.now();
      nn.advance(10 * SECOND + 1234);
    }
    nn.fs.history.setRetention(ADMIN, "/v", RetentionRule.parse("1s 2v")).await();
    nn.advance(10 * SECOND);
    // The two newest versions (overwrites are versions of the name) are kept; the older ones are not.
    assertThat(info("/v/f", moments[4]).getLength()).isEqualTo(104);
    assertThat(info("/v/f", moments[3]).getLength()).isEqualTo(103);
    assertThatThrownBy(() -> info("/v/f", moments[2])).hasMessageContaining("HISTORY_EXPIRED");

    nn.fs.history.setRetention(ADMIN, "/v", RetentionRule.parse("1s 10s/1d")).await();
    long tier = (moments[1] / (10 * SECOND) + 1) * (10 * SECOND);  // the first multiple of 10 s after moments[1]
    assertThat(info("/v/f", tier).getLength()).isEqualTo(101);
    assertThatThrownBy(() -> info("/v/f", tier + 1)).hasMessageContaining("HISTORY_EXPIRED");
  }

  @Test
  void versionsListsWhatIsReadableAndTheVersionCurrentAtTheHorizon() throws Exception {
    nn.writeFile("/w/f", 1);
    nn.advance(10 * SECOND);
    nn.writeFile("/w/f", 2);
    nn.advance(10 * SECOND);
    nn.fs.history.setRetention(ADMIN, "/w", RetentionRule.parse("5s")).await();
    List<VersionProto> versions = nn.fs.queries.listVersions(ADMIN, "/w/f");
    assertThat(versions).isNotEmpty();
    VersionProto first = versions.get(0);
    assertThat(first.getLength()).isEqualTo(2);
    assertThat(first.getReadableFromMicros()).isGreaterThan(HlcTimestamp.fromProto(first.getHlc())
        .physicalMicros());
    assertThat(info("/w/f", first.getReadableFromMicros()).getLength()).isEqualTo(2);
  }

  @Test
  void rulesAndPinsSurviveARestartFromTheEditLogAndFromACheckpoint() throws Exception {
    nn.writeFile("/r/f", 3);
    long pinned = nn.now();
    nn.advance(SECOND);
    nn.fs.history.setRetention(ADMIN, "/r", RetentionRule.parse("2s 4v")).await();
    nn.fs.history.pin(ADMIN, "/r/f", TimeSpec.system(pinned), "p1").await();
    nn.restart();
    assertThat(nn.fs.history.getRetention(ADMIN, "/r/f").rule()).isEqualTo(RetentionRule.parse("2s 4v"));
    assertThat(nn.fs.history.getPin(ADMIN, "p1").path()).isEqualTo("/r/f");
    nn.fs.checkpoint();
    nn.restart();
    assertThat(nn.fs.history.getRetention(ADMIN, "/r").ownRule()).isEqualTo(RetentionRule.parse("2s 4v"));
    assertThat(nn.fs.history.getPin(ADMIN, "p1").micros()).isEqualTo(pinned);
  }
}
