package io.fffs.namenode.fs;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * The Raft state machine thread takes snapshots, and a leader handing over the lead holds the write lock until that
 * thread reports a commit ({@link Namesystem#whilePaused}): the snapshot must give up at once, not wait for the lock.
 */
class PausedImageTest extends NamesystemTestBase {

  @Test
  void anImageIsNotWaitedForWhileChangesArePaused() throws Exception {
    nn.writeFile("/f", 10);
    Path image = dir.resolve("image");
    CountDownLatch paused = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    CompletableFuture<Void> pause = CompletableFuture.runAsync(() -> {
      try {
        nn.fs.whilePaused(() -> {
          paused.countDown();
          return awaitQuietly(resume);
        });
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    assertThat(paused.await(30, SECONDS)).isTrue();
    try {
      assertThat(nn.fs.trySaveImageIfSettled(image)).isEqualTo(-1);
      assertThat(image).doesNotExist();
    } finally {
      resume.countDown();
    }
    pause.get(30, SECONDS);
    assertThat(nn.fs.trySaveImageIfSettled(image)).isPositive();
    assertThat(image).exists();
  }

  private static boolean awaitQuietly(CountDownLatch latch) {
    try {
      return latch.await(30, SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
