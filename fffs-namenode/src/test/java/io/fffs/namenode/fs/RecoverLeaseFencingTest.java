package io.fffs.namenode.fs;

import static io.fffs.namenode.fs.NamesystemFixture.ADMIN;
import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.time.TimeSpec;
import io.fffs.namenode.NameNodeConfigKeys;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code recoverLease} closes a file only once every live DataNode confirmed its writer's fence, answers false
 * when one did not in time, and lets at most half the IPC handlers wait for fences (with two handlers one, with
 * one none): a recovery that finds no free wait answers false at once, its fence published all the same, and a
 * call after the DataNodes confirmed it closes the file without raising another.
 */
class RecoverLeaseFencingTest {
  @TempDir
  Path dir;
  private NamesystemFixture nn;
  private final ExecutorService calls = Executors.newSingleThreadExecutor();

  /** A namesystem with {@code handlers} IPC handlers and the fence timeout given. */
  private void start(int handlers, String fenceTimeout) throws Exception {
    Configuration conf = NamesystemFixture.conf();
    conf.setInt(NameNodeConfigKeys.RPC_HANDLERS_KEY, handlers);
    conf.set(NameNodeConfigKeys.WRITER_FENCE_TIMEOUT_KEY, fenceTimeout);
    nn = new NamesystemFixture(dir, conf);
    nn.fs.writerFencing.forRegistration("dn-1");  // dn-1 holds fences: recoveries wait until it confirms theirs
  }

  @AfterEach
  void stop() throws Exception {
    calls.shutdownNow();
    if (nn != null) {
      nn.close();
    }
  }

  @Test
  void aRecoveryWaitsForTheFenceAndAnotherFindingNoFreeWaitAnswersFalseAtOnce() throws Exception {
    start(2, "60s");  // one wait
    open("/a", "writer-a");
    open("/b", "writer-b");
    Future<Boolean> first = calls.submit(() -> nn.fs.files.recoverLease(ADMIN, "/a").await());
    await(() -> nn.fs.writerFencing.size() == 1);

    long started = System.nanoTime();
    assertThat(nn.fs.files.recoverLease(ADMIN, "/b").await()).isFalse();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).as("no wait").isLessThan(30_000);
    assertThat(nn.fs.writerFencing.size()).as("its fence published all the same").isEqualTo(2);
    assertThat(isOpen("/b")).isTrue();
    assertThat(first.isDone()).as("waiting for dn-1").isFalse();

    nn.fs.writerFencing.forHeartbeat("dn-1", 2);
    assertThat(first.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(isOpen("/a")).isFalse();
  }

  @Test
  void aFenceNotConfirmedInTimeLeavesTheFileOpenUntilItIsAskedAgain() throws Exception {
    start(2, "3s");
    open("/c", "writer-c");
    assertThat(nn.fs.files.recoverLease(ADMIN, "/c").await()).as("dn-1 never confirmed").isFalse();
    assertThat(isOpen("/c")).isTrue();

    Future<Boolean> again = calls.submit(() -> nn.fs.files.recoverLease(ADMIN, "/c").await());
    await(() -> nn.fs.writerFencing.size() == 2);
    nn.fs.writerFencing.forHeartbeat("dn-1", 2);
    assertThat(again.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(isOpen("/c")).isFalse();
    assertThat(nn.fs.files.recoverLease(ADMIN, "/c").await()).as("closed already").isTrue();
  }

  @Test
  void withOneHandlerNoRecoveryWaitsAndACallAfterTheConfirmationCloses() throws Exception {
    start(1, "60s");
    open("/d", "writer-d");
    long started = System.nanoTime();
    assertThat(nn.fs.files.recoverLease(ADMIN, "/d").await()).isFalse();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).as("no wait").isLessThan(30_000);
    assertThat(nn.fs.writerFencing.size()).isEqualTo(1);
    assertThat(nn.fs.files.recoverLease(ADMIN, "/d").await()).as("not confirmed yet").isFalse();
    assertThat(isOpen("/d")).isTrue();

    nn.fs.writerFencing.forHeartbeat("dn-1", 2);  // dn-1 holds both fences the two calls raised
    int fences = nn.fs.writerFencing.size();
    assertThat(nn.fs.files.recoverLease(ADMIN, "/d").await()).as("its fence confirmed").isTrue();
    assertThat(nn.fs.writerFencing.size()).as("no fence raised again").isEqualTo(fences);
    assertThat(isOpen("/d")).isFalse();
  }

  private void open(String path, String client) throws Exception {
    FileStatusProto file = nn.fs.files.create(ADMIN, path, 0644, client, false, true, 1, 1 << 20, null).await();
    nn.fs.files.addBlock(ADMIN, path, file.getInodeId(), client, null).await();
  }

  private boolean isOpen(String path) throws Exception {
    return nn.fs.queries.getFileInfo(ADMIN, path, TimeSpec.latest()).getUnderConstruction();
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited 10 s").isLessThan(deadline);
      Thread.sleep(10);
    }
  }
}
