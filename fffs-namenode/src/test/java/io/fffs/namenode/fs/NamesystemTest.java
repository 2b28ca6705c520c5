package io.fffs.namenode.fs;

import static io.fffs.namenode.fs.NamesystemFixture.ADMIN;
import static io.fffs.namenode.fs.NamesystemFixture.ALICE;
import static io.fffs.namenode.fs.NamesystemFixture.BOB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.VersionProto;
import io.fffs.common.time.TimeSpec;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class NamesystemTest extends NamesystemTestBase {
  private FileStatusProto info(String path, TimeSpec time) throws Exception {
    return nn.fs.queries.getFileInfo(ADMIN, path, time);
  }

  @Test
  void overwrittenFileIsReadableAsItWas() throws Exception {
    long first = nn.writeFile("/data/a", 100);
    nn.advance(1_000);
    long t1 = nn.now();
    nn.advance(1_000);
    long second = nn.writeFile("/data/a", 7);

    FileStatusProto past = info("/data/a", TimeSpec.system(t1));
    FileStatusProto latest = info("/data/a", TimeSpec.latest());
    assertThat(past.getLength()).isEqualTo(100);
    assertThat(latest.getLength()).isEqualTo(7);
    assertThat(past.getInodeId()).isNotEqualTo(latest.getInodeId());
    LocatedBlocksProto pastBlocks = nn.fs.queries.getBlockLocations(ADMIN, "/data/a", TimeSpec.system(t1), 0, 1000);
    assertThat(pastBlocks.getBlocks(0).getBlock().getBlockId()).isEqualTo(first);
    assertThat(pastBlocks.getBlocks(0).getLocationsList()).extracting(l -> l.getDatanodeUuid())
        .containsExactly("dn-1");
    assertThat(nn.fs.queries.getBlockLocations(ADMIN, "/data/a", TimeSpec.latest(), 0, 1000).getBlocks(0)
        .getBlock().getBlockId()).isEqualTo(second);
  }

  @Test
  void deletedAndRenamedPathsStayInThePast() throws Exception {
    nn.writeFile("/d/x", 10);
    nn.writeFile("/d/y", 20);
    nn.advance(500);
    long beforeChanges = nn.now();
    nn.advance(500);
    assertThat(nn.fs.directories.rename(ADMIN, "/d/x", "/d/z").await()).isTrue();
    assertThat(nn.fs.directories.delete(ADMIN, "/d/y", false).await()).isTrue();
    nn.advance(500);
    long afterChanges = nn.now();
    nn.advance(500);

    assertThat(names("/d", TimeSpec.system(beforeChanges))).containsExactly("x", "y");
    assertThat(names("/d", TimeSpec.system(afterChanges))).containsExactly("z");
    assertThat(info("/d/y", TimeSpec.system(beforeChanges)).getLength()).isEqualTo(20);
    assertThat(info("/d/y", TimeSpec.latest())).isNull();
    assertThat(info("/d/x", TimeSpec.system(beforeChanges)).getInodeId())
        .isEqualTo(info("/d/z", TimeSpec.latest()).getInodeId());
    // Deleting the whole directory keeps it readable in the past.
    assertThat(nn.fs.directories.delete(ADMIN, "/d", true).await()).isTrue();
    assertThat(info("/d", TimeSpec.latest())).isNull();
    assertThat(names("/d", TimeSpec.system(afterChanges))).containsExactly("z");
  }

  private List<String> names(String dir, TimeSpec time) throws Exception {
    return nn.fs.queries.getListing(ADMIN, dir, time, "", 1000).entries.stream()
        .map(s -> s.getPath().substring(s.getPath().lastIndexOf('/') + 1)).collect(Collectors.toList());
  }

  @Test
  void listingIsPaged() throws Exception {
    for (int i = 0; i < 25; i++) {
      nn.fs.directories.mkdirs(ADMIN, String.format("/many/d%02d", i), 0755, true).await();
    }
    NamespaceQueries.Listing page = nn.fs.queries.getListing(ADMIN, "/many", TimeSpec.latest(), "", 10);
    assertThat(page.entries).hasSize(10);
    assertThat(page.remaining).isPositive();
    NamespaceQueries.Listing last = nn.fs.queries.getListing(ADMIN, "/many", TimeSpec.latest(), "d19", 10);
    assertThat(last.entries).extracting(FileStatusProto::getPath).containsExactly("/many/d20", "/many/d21",
        "/many/d22", "/many/d23", "/many/d24");
    assertThat(last.remaining).isZero();
  }

  @Test
  void renameFollowsHadoopSemantics() throws Exception {
    nn.writeFile("/src/f", 1);
    nn.fs.directories.mkdirs(ADMIN, "/dst", 0755, true).await();
    assertThat(nn.fs.directories.rename(ADMIN, "/src/f", "/dst").await()).isTrue();
    assertThat(info("/dst/f", TimeSpec.latest())).isNotNull();
    assertThat(nn.fs.directories.rename(ADMIN, "/missing", "/x").await()).isFalse();
    assertThat(nn.fs.directories.rename(ADMIN, "/dst/f", "/nowhere/f").await()).isFalse();
    nn.writeFile("/other", 1);
    assertThat(nn.fs.directories.rename(ADMIN, "/dst/f", "/other").await()).isFalse();
    // Into its own subtree: false, as HDFS's FileSystem#rename answers.
    assertThat(nn.fs.directories.rename(ADMIN, "/dst", "/dst/inner").await()).isFalse();
    assertThat(info("/dst/f", TimeSpec.latest())).isNotNull();
  }

  @Test
  void deleteRefusesNonEmptyDirectoryWithoutRecursive() throws Exception {
    nn.writeFile("/full/f", 1);
    assertThatThrownBy(() -> nn.fs.directories.delete(ADMIN, "/full", false).await())
        .isInstanceOfSatisfying(FffsException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.DIRECTORY_NOT_EMPTY));
    // The root is never deleted, but a non-recursive attempt on a non-empty root fails loudly, as in HDFS.
    assertThatThrownBy(() -> nn.fs.directories.delete(ADMIN, "/", false).await())
        .isInstanceOfSatisfying(FffsException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.DIRECTORY_NOT_EMPTY));
    assertThat(nn.fs.directories.delete(ADMIN, "/", true).await()).isFalse();
    assertThat(nn.fs.directories.delete(ADMIN, "/nothing", true).await()).isFalse();
  }

  @Test
  void createRefusesExistingWithoutOverwriteAndMissingParent() throws Exception {
    nn.writeFile("/e/f", 1);
    assertThatThrownBy(() -> nn.fs.files.create(ADMIN, "/e/f", 0644, "c", false, true, 1, 1 << 20, null).await())
        .hasMessageStartingWith("ALREADY_EXISTS: /e/f already exists");
    assertThatThrownBy(() -> nn.fs.files.create(ADMIN, "/no/such/f", 0644, "c", false, false, 1, 1 << 20, null).await())
        .hasMessageStartingWith("NOT_FOUND: parent directory /no/such");
    assertThatThrownBy(() -> nn.fs.files.create(ADMIN, "/e/f/g", 0644, "c", false, true, 1, 1 << 20, null).await())
        .hasMessageStartingWith("NOT_A_DIRECTORY: /e/f is a file");
    assertThatThrownBy(() -> nn.fs.files.create(ADMIN, "/e/g", 0644, "c", false, true, 1, 1000, null).await())
        .hasMessageStartingWith("INVALID_ARGUMENT: block size 1000");
  }

  @Test
  void permissionsAreCheckedAndNamed() throws Exception {
    nn.fs.directories.mkdirs(ADMIN, "/home/alice", 0755, true).await();
    nn.fs.directories.setOwner(ADMIN, "/home/alice", "alice", "staff").await();
    nn.fs.files.create(ALICE, "/home/alice/notes", 0600, "alice-client", false, false, 1, 1 << 20, null).await();
    assertThatThrownBy(() -> nn.fs.files.create(BOB, "/home/alice/bobs", 0644, "bob", false, false, 1, 1 << 20,
        null).await()).isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
          assertThat(e.detail()).isEqualTo("user bob lacks write permission on /home/alice (alice:staff 755)");
        });
    assertThatThrownBy(() -> nn.fs.queries.getBlockLocations(BOB, "/home/alice/notes", TimeSpec.latest(), 0, 1))
        .hasMessageContaining("user bob lacks read permission on /home/alice/notes");
    assertThatThrownBy(() -> nn.fs.directories.setPermission(BOB, "/home/alice", 0777).await())
        .hasMessageContaining("bob is not the owner of /home/alice");
    assertThatThrownBy(() -> nn.fs.directories.setOwner(ALICE, "/home/alice", "bob", null).await())
        .hasMessageContaining("only the superuser");
  }

  @Test
  void oneWriterPerFile() throws Exception {
    FileStatusProto file = nn.fs.files.create(ADMIN, "/w", 0644, "writer-1", false, true, 1, 1 << 20, null).await();
    assertThatThrownBy(() -> nn.fs.files.openForWrite(ADMIN, "/w", "writer-2").await())
        .hasMessageStartingWith("LEASE_CONFLICT: /w is being written by client writer-1");
    assertThatThrownBy(() -> nn.fs.files.addBlock(ADMIN, "/w", file.getInodeId(), "writer-2", null).await())
        .hasMessageStartingWith("LEASE_CONFLICT");
    // After the soft limit (60 s) without a renewal another client recovers the file.
    nn.nanos.addAndGet(61_000_000_000L);
    nn.fs.datanodes().heartbeat("dn-1", 0, 1L << 30, 0, 0, io.fffs.common.time.HlcTimestamp.ZERO, null);
    FileOps.OpenFile reopened = nn.fs.files.openForWrite(ADMIN, "/w", "writer-2").await();
    assertThat(reopened.status.getUnderConstruction()).isTrue();
    nn.fs.files.addBlock(ADMIN, "/w", file.getInodeId(), "writer-2", null).await();
  }

  @Test
  void fsyncAndTruncateMakeVersions() throws Exception {
    FileStatusProto file = nn.fs.files.create(ADMIN, "/v", 0644, "c", false, true, 1, 1 << 20, null).await();
    LocatedBlockProto block = nn.fs.files.addBlock(ADMIN, "/v", file.getInodeId(), "c", null).await();
    nn.advance(10);
    long id = block.getBlock().getBlockId();
    nn.fs.files.fsync(ADMIN, "/v", file.getInodeId(), "c", BlockProto.newBuilder().setBlockId(id).setNumBytes(50)
        .build()).await();
    nn.advance(10);
    long afterFsync = nn.now();
    nn.advance(10);
    nn.fs.files.complete(ADMIN, "/v", file.getInodeId(), "c", BlockProto.newBuilder().setBlockId(id)
        .setNumBytes(80).build()).await();
    nn.advance(10);
    nn.fs.files.truncate(ADMIN, "/v", 30, "c").await();

    assertThat(info("/v", TimeSpec.system(afterFsync)).getLength()).isEqualTo(50);
    assertThat(info("/v", TimeSpec.latest()).getLength()).isEqualTo(30);
    List<VersionProto> versions = nn.fs.queries.listVersions(ADMIN, "/v");
    assertThat(versions).extracting(VersionProto::getChange)
        .containsExactly("create", "addBlock", "fsync", "complete", "truncate");
    assertThat(versions).extracting(VersionProto::getLength).containsExactly(0L, 0L, 50L, 80L, 30L);
  }

  @Test
  void leaseRecoveryAfterATruncateDoesNotBringTheCutBytesBack() throws Exception {
    FileStatusProto file = nn.fs.files.create(ADMIN, "/t", 0644, "a", false, true, 1, 1 << 20, null).await();
    long id = nn.fs.files.addBlock(ADMIN, "/t", file.getInodeId(), "a", null).await().getBlock().getBlockId();
    nn.fs.datanodes().blocksReceived("dn-1", new long[] {id}, new long[] {100});
    nn.fs.files.complete(ADMIN, "/t", file.getInodeId(), "a", BlockProto.newBuilder().setBlockId(id)
        .setNumBytes(100).build()).await();
    nn.fs.files.truncate(ADMIN, "/t", 40, "a").await();
    nn.fs.files.openForWrite(ADMIN, "/t", "b").await();  // b appends nothing and goes silent
    nn.nanos.addAndGet(61_000_000_000L);
    nn.fs.datanodes().heartbeat("dn-1", 0, 1L << 30, 0, 0, io.fffs.common.time.HlcTimestamp.ZERO, null);
    nn.fs.files.openForWrite(ADMIN, "/t", "c").await();  // recovers b's lease: closes the file at its block's length

    assertThat(info("/t", TimeSpec.latest()).getLength()).isEqualTo(40);
    List<VersionProto> versions = nn.fs.queries.listVersions(ADMIN, "/t");
    List<String> changes = versions.stream().map(VersionProto::getChange).collect(Collectors.toList());
    assertThat(versions.subList(changes.indexOf("truncate"), versions.size()))
        .extracting(VersionProto::getLength).containsOnly(40L);
  }

  @Test
  void aFileDeletedWhileOpenDoesNotGetItsLeaseBackAtARestart() throws Exception {
    FileStatusProto kept = nn.fs.files.create(ADMIN, "/open/kept", 0644, "a", false, true, 1, 1 << 20, null).await();
    FileStatusProto gone = nn.fs.files.create(ADMIN, "/open/gone", 0644, "a", false, true, 1, 1 << 20, null).await();
    nn.fs.directories.delete(ADMIN, "/open/gone", false).await();
    assertThatThrownBy(() -> nn.fs.files.addBlock(ADMIN, "/open/gone", gone.getInodeId(), "a", null).await())
        .hasMessageStartingWith("LEASE_CONFLICT");
    nn.restart();
    assertThat(nn.fs.leases().holder(kept.getInodeId())).isEqualTo("a");
    assertThat(nn.fs.leases().holder(gone.getInodeId())).isNull();
    assertThatThrownBy(() -> nn.fs.files.addBlock(ADMIN, "/open/gone", gone.getInodeId(), "a", null).await())
        .hasMessageStartingWith("LEASE_CONFLICT");
  }

  @Test
  void futureTimesAreRefused() throws Exception {
    assertThatThrownBy(() -> info("/", TimeSpec.system(nn.now() + 5_000_000)))
        .isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.TIME_IN_FUTURE);
          assertThat(e.detail()).contains("5 s ahead");
        });
  }

  @Test
  void changesAreRefusedInSafeModeWhileQueriesAreAnswered() throws Exception {
    long block = nn.writeFile("/s/f", 10);
    nn.restartInSafeMode();
    assertThat(nn.fs.safeMode().isOn()).as("one block not yet reported").isTrue();
    long txid = nn.fs.lastTxid();

    assertThatThrownBy(() -> nn.fs.directories.mkdirs(ADMIN, "/s/new", 0755, false))
        .isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.SAFE_MODE);
          assertThat(e.detail()).startsWith("the NameNode is in safe mode and refuses mkdirs /s/new: 0 of 1 blocks"
              + " reported so far");
        });
    assertThatThrownBy(() -> nn.fs.files.create(ADMIN, "/s/g", 0644, "c", false, true, 1, 1 << 20, null))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SAFE_MODE));
    assertThat(nn.fs.lastTxid()).as("nothing was logged").isEqualTo(txid);
    assertThat(info("/s/f", TimeSpec.latest()).getLength()).isEqualTo(10);

    // The DataNode reports the block: safe mode ends and changes go through.
    nn.fs.datanodes().blocksReceived("dn-1", new long[] {block}, new long[] {10});
    assertThat(nn.fs.safeMode().isOn()).isFalse();
    assertThat(nn.fs.directories.mkdirs(ADMIN, "/s/new", 0755, false).await()).isTrue();
    assertThat(info("/s/new", TimeSpec.latest())).isNotNull();
  }

  @Test
  void safeModeDoesNotWaitForAnOpenFilesLastBlockThatNoHsyncReached() throws Exception {
    long closed = nn.writeFile("/s/closed", 10);
    FileStatusProto open = nn.fs.files.create(ADMIN, "/s/open", 0644, "client-2", true, true, 1, 1 << 20, null)
        .await();
    long first = nn.fs.files.addBlock(ADMIN, "/s/open", open.getInodeId(), "client-2", null).await().getBlock()
        .getBlockId();
    nn.fs.files.fsync(ADMIN, "/s/open", open.getInodeId(), "client-2",
        BlockProto.newBuilder().setBlockId(first).setNumBytes(7).build()).await();
    long hsynced = nn.fs.files.addBlock(ADMIN, "/s/open", open.getInodeId(), "client-2",
        BlockProto.newBuilder().setBlockId(first).setNumBytes(7).build()).await().getBlock().getBlockId();
    nn.fs.files.fsync(ADMIN, "/s/open", open.getInodeId(), "client-2",
        BlockProto.newBuilder().setBlockId(hsynced).setNumBytes(3).build()).await();
    long neverSynced = nn.fs.files.addBlock(ADMIN, "/s/open", open.getInodeId(), "client-2",
        BlockProto.newBuilder().setBlockId(hsynced).setNumBytes(3).build()).await().getBlock().getBlockId();
    nn.restartInSafeMode();

    nn.fs.datanodes().blocksReceived("dn-1", new long[] {closed, first}, new long[] {10, 7});
    assertThat(nn.fs.safeMode().isOn()).as("the open file's hsync'd last-but-one block is not reported").isTrue();
    nn.fs.datanodes().blocksReceived("dn-1", new long[] {hsynced}, new long[] {3});
    assertThat(nn.fs.safeMode().isOn()).as("block %d, which no hsync reached, is not waited for", neverSynced)
        .isFalse();
  }

  @Test
  void aChangeReturnsItsAnswerWithTheTxidItWaitsFor() throws Exception {
    Logged<Boolean> made = nn.fs.directories.mkdirs(ADMIN, "/l", 0755, false);
    assertThat(made.txid()).isEqualTo(nn.fs.lastTxid());
    CompletableFuture<Boolean> answer = new CompletableFuture<>();
    made.whenDurable(answer::complete, answer::completeExceptionally);
    assertThat(answer.get(30, TimeUnit.SECONDS)).isTrue();
    assertThat(made.isDurable()).isTrue();

    // A change that logs nothing (the directory exists) still answers only after the edit it answered from.
    Logged<Boolean> again = nn.fs.directories.mkdirs(ADMIN, "/l", 0755, false);
    assertThat(again.txid()).isEqualTo(made.txid());
    assertThat(again.map(exists -> exists ? "exists" : "missing").await()).isEqualTo("exists");
  }

  @Test
  void historySurvivesRestartAndCheckpoint() throws Exception {
    nn.writeFile("/r/a", 10);
    nn.advance(100);
    long t = nn.now();
    nn.advance(100);
    nn.writeFile("/r/a", 20);
    nn.restart();
    assertThat(info("/r/a", TimeSpec.system(t)).getLength()).isEqualTo(10);
    assertThat(info("/r/a", TimeSpec.latest()).getLength()).isEqualTo(20);
    nn.fs.checkpoint();
    nn.advance(100);
    nn.fs.directories.delete(ADMIN, "/r/a", false).await();
    nn.restart();
    assertThat(info("/r/a", TimeSpec.system(t)).getLength()).isEqualTo(10);
    assertThat(info("/r/a", TimeSpec.latest())).isNull();
    // New stamps follow the history even though the manual clock did not move across the restart.
    long before = nn.fs.clock().last().packed();
    nn.fs.directories.mkdirs(ADMIN, "/after", 0755, true).await();
    assertThat(nn.fs.queries.getFileInfo(ADMIN, "/after", TimeSpec.latest()).getVersionHlc().getPacked())
        .isGreaterThan(before);
  }
}
