package io.fffs.namenode.edits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DurabilityWaitsTest {
  @Test
  void inlineCallbacksRunOnTheAdvancingThreadInTxidOrderOnceDue() {
    DurabilityWaits waits = DurabilityWaits.inline(10);
    List<String> answered = new ArrayList<>();
    waits.whenSynced(13, () -> answered.add("13 " + Thread.currentThread().getName()), e -> answered.add("13 failed"));
    waits.whenSynced(12, () -> answered.add("12 " + Thread.currentThread().getName()), e -> answered.add("12 failed"));
    waits.whenSynced(9, () -> answered.add("9 at once"), e -> answered.add("9 failed"));
    assertThat(answered).containsExactly("9 at once");

    waits.advance(12);
    assertThat(answered).containsExactly("9 at once", "12 " + Thread.currentThread().getName());
    waits.advance(11);  // behind: no new round
    waits.advance(13);
    assertThat(answered).containsExactly("9 at once", "12 " + Thread.currentThread().getName(),
        "13 " + Thread.currentThread().getName());
    assertThat(waits.rounds()).isEqualTo(2);
    assertThat(waits.durable()).isEqualTo(13);
  }

  @Test
  void aRefusalFailsWhatIsNotDurableAndEveryLaterWaiter() {
    DurabilityWaits waits = DurabilityWaits.inline(5);
    List<String> answered = new ArrayList<>();
    waits.whenSynced(7, () -> answered.add("7"), e -> answered.add("7 " + e.getMessage()));
    waits.refuse(new IOException("lost the lead"));
    waits.refuse(new IOException("second reason"));
    waits.whenSynced(8, () -> answered.add("8"), e -> answered.add("8 " + e.getMessage()));
    waits.whenSynced(5, () -> answered.add("5"), e -> answered.add("5 " + e.getMessage()));
    assertThat(answered).containsExactly("7 lost the lead", "8 lost the lead", "5");
    assertThatThrownBy(() -> waits.await(6)).hasMessage("lost the lead");
  }

  @Test
  void aBlockedWaiterReturnsOnceItsTxidIsDurable() throws Exception {
    DurabilityWaits waits = DurabilityWaits.withNotifier(0, "test-notifier");
    try {
      CountDownLatch returned = new CountDownLatch(1);
      Thread waiter = new Thread(() -> {
        try {
          waits.await(3);
          returned.countDown();
        } catch (IOException e) {
          throw new AssertionError(e);
        }
      });
      waiter.start();
      waits.advance(2);
      assertThat(returned.getCount()).isEqualTo(1);
      assertThat(waits.isSynced(3)).isFalse();
      waits.advance(3);
      assertThat(returned.await(10, TimeUnit.SECONDS)).isTrue();

      CountDownLatch notified = new CountDownLatch(1);
      String[] thread = new String[1];
      waits.whenSynced(4, () -> {
        thread[0] = Thread.currentThread().getName();
        notified.countDown();
      }, e -> { });
      waits.advance(4);
      assertThat(notified.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(thread[0]).isEqualTo("test-notifier");
    } finally {
      waits.shutdown();
    }
  }
}
