package io.fffs.namenode.fs;

import static io.fffs.namenode.fs.NamesystemFixture.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.fs.HistoryQueries.Difference;
import io.fffs.namenode.fs.HistoryQueries.Kind;
import org.junit.jupiter.api.Test;

/** What changed in a tree between two moments, and what its present and past hold. */
class HistoryQueriesTest extends NamesystemTestBase {
  private static final long SECOND = 1_000_000L;

  private long moment() {
    nn.advance(SECOND);
    long moment = nn.physical.currentTimeMicros();
    nn.advance(SECOND);
    return moment;
  }

  @Test
  void aDiffListsCreatedDeletedRenamedAndModifiedEntriesByPath() throws Exception {
    nn.writeFile("/d/a", 10);
    nn.writeFile("/d/b", 20);
    nn.writeFile("/d/sub/c", 30);
    nn.writeFile("/d/x", 40);
    nn.writeFile("/elsewhere/y", 1);
    long t1 = moment();
    nn.fs.directories.rename(ADMIN, "/d/b", "/d/b2").await();
    FileStatusProto c = nn.fs.queries.getFileInfo(ADMIN, "/d/sub/c", TimeSpec.latest());
    nn.fs.files.openForWrite(ADMIN, "/d/sub/c", "w").await();
    LocatedBlockProto more = nn.fs.files.addBlock(ADMIN, "/d/sub/c", c.getInodeId(), "w",
        BlockProto.newBuilder().setBlockId(nn.fs.queries.getBlockLocations(ADMIN, "/d/sub/c", TimeSpec.latest(), 0,
            1).getBlocks(0).getBlock().getBlockId()).setNumBytes(30).build()).await();
    nn.fs.files.complete(ADMIN, "/d/sub/c", c.getInodeId(), "w", BlockProto.newBuilder()
        .setBlockId(more.getBlock().getBlockId()).setNumBytes(5).build()).await();
    nn.fs.directories.delete(ADMIN, "/d/x", false).await();
    nn.writeFile("/d/new", 7);
    nn.fs.directories.setPermission(ADMIN, "/d/sub", 0700).await();
    nn.writeFile("/elsewhere/z", 1);
    long t2 = moment();

    HistoryQueries.Diff diff = nn.fs.historyQueries.diff(ADMIN, "/d", TimeSpec.system(t1), TimeSpec.system(t2),
        100);
    assertThat(diff.truncated()).isFalse();
    assertThat(diff.differences()).containsExactly(
        new Difference(Kind.RENAMED, "/d/b", "/d/b2", 20, 20),
        new Difference(Kind.CREATED, "/d/new", null, -1, 7),
        new Difference(Kind.MODIFIED, "/d/sub", null, 0, 0),
        new Difference(Kind.MODIFIED, "/d/sub/c", null, 30, 35),
        new Difference(Kind.DELETED, "/d/x", null, 40, -1));
    assertThat(nn.fs.historyQueries.diff(ADMIN, "/d", TimeSpec.system(t2), TimeSpec.latest(), 100).differences())
        .isEmpty();
    assertThat(nn.fs.historyQueries.diff(ADMIN, "/d", TimeSpec.system(t1), TimeSpec.latest(), 2).truncated())
        .isTrue();
  }

  @Test
  void aDiffOfAMomentBeyondTheHorizonIsRefused() throws Exception {
    nn.writeFile("/h/a", 1);
    long old = moment();
    nn.fs.history.setRetention(ADMIN, "/h", RetentionRule.parse("1s")).await();
    nn.advance(10 * SECOND);
    assertThatThrownBy(() -> nn.fs.historyQueries.diff(ADMIN, "/h", TimeSpec.system(old), TimeSpec.latest(), 10))
        .hasMessageContaining("HISTORY_EXPIRED");
  }

  @Test
  void usageTellsThePresentFromThePast() throws Exception {
    nn.writeFile("/u/a", 100);
    nn.writeFile("/u/a", 50);  // replaces: 100 bytes only the past lists
    nn.writeFile("/u/b", 10);
    nn.fs.directories.delete(ADMIN, "/u/b", false).await();
    nn.writeFile("/u/sub/c", 1);
    HistoryQueries.Usage usage = nn.fs.historyQueries.usage(ADMIN, "/u");
    assertThat(usage.files()).isEqualTo(2);
    assertThat(usage.directories()).isEqualTo(2);
    assertThat(usage.bytesNow()).isEqualTo(51);
    assertThat(usage.pastOnlyInodes()).isEqualTo(2);
    assertThat(usage.pastOnlyBytes()).isEqualTo(110);
    assertThat(usage.versionsKept()).isGreaterThan(8);
  }
}
