package io.fffs.namenode.ha;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReadLeaseTest {
  private static final long LEASE = 900;
  private final AtomicLong now = new AtomicLong(Long.MAX_VALUE - 10_000);  // nanoTime may wrap: compare by difference
  private final Object term = new Object();

  @Test
  void aMajorityAnswerHoldsTheLeaseFromItsSendTimeNotItsArrival() {
    ReadLease lease = new ReadLease(LEASE, 3, now::get);
    lease.appender(term, "nn2", () -> { });
    lease.appender(term, "nn3", () -> { });
    assertThat(lease.holds()).as("no answer yet").isFalse();

    long sent = now.get();
    now.addAndGet(600);  // the answer came late
    lease.answered(term, "nn2", sent);
    assertThat(lease.holds()).isTrue();
    now.addAndGet(LEASE - 600 - 1);
    assertThat(lease.holds()).isTrue();
    now.addAndGet(1);
    assertThat(lease.holds()).as("a lease period after the request was sent").isFalse();

    lease.answered(term, "nn3", now.get() - 100);
    assertThat(lease.holds()).isTrue();
    lease.answered(term, "nn2", now.get() - 800);  // an older answer never shortens it
    now.addAndGet(LEASE - 100 - 1);
    assertThat(lease.holds()).isTrue();
  }

  @Test
  void fiveMembersNeedTwoOthersAndTheOlderOfTheirAnswersCounts() {
    ReadLease lease = new ReadLease(LEASE, 5, now::get);
    for (String member : new String[] {"nn2", "nn3", "nn4", "nn5"}) {
      lease.appender(term, member, () -> { });
    }
    long start = now.get();
    lease.answered(term, "nn2", start);
    assertThat(lease.holds()).as("two of five is no majority").isFalse();
    lease.answered(term, "nn3", start + 300);
    lease.answered(term, "nn4", start + 500);
    now.set(start + 300 + LEASE - 1);
    assertThat(lease.holds()).as("runs from nn3's send time, the older of the newest two").isTrue();
    now.set(start + 300 + LEASE);
    assertThat(lease.holds()).isFalse();
  }

  @Test
  void anEndedOrEarlierTermAndAHandOverHoldNothing() {
    ReadLease lease = new ReadLease(LEASE, 3, now::get);
    lease.appender(term, "nn2", () -> { });
    lease.answered(term, "nn2", now.get());
    assertThat(lease.holds()).isTrue();

    lease.end();
    assertThat(lease.holds()).as("stepped down").isFalse();
    lease.answered(term, "nn2", now.get());
    assertThat(lease.holds()).as("a late answer of the term that ended").isFalse();

    Object nextTerm = new Object();
    lease.appender(nextTerm, "nn2", () -> { });
    lease.answered(term, "nn2", now.get());
    assertThat(lease.holds()).as("an answer of the earlier term").isFalse();
    lease.answered(nextTerm, "nn2", now.get());
    assertThat(lease.holds()).isTrue();

    lease.suspend();
    assertThat(lease.holds()).as("handing the lead over").isFalse();
    long sentWhileHandingOver = now.get();
    lease.answered(nextTerm, "nn2", sentWhileHandingOver);
    assertThat(lease.holds()).isFalse();
    lease.resume(5_000);
    now.addAndGet(100);
    lease.answered(nextTerm, "nn2", sentWhileHandingOver);
    lease.answered(nextTerm, "nn2", now.get());
    assertThat(lease.holds()).as("the hand-over failed, but its target may still be elected for a while").isFalse();
    now.addAndGet(4_900);
    lease.answered(nextTerm, "nn2", now.get());
    assertThat(lease.holds()).as("answers to requests sent once that while is over count again").isTrue();
  }

  @Test
  void aWaitAsksForHeartbeatsAndHoldsOnceTheyAreAnswered() throws Exception {
    ReadLease lease = new ReadLease(TimeUnit.SECONDS.toNanos(10), 3, System::nanoTime);
    CountDownLatch asked = new CountDownLatch(1);
    lease.appender(term, "nn2", asked::countDown);
    Thread follower = new Thread(() -> {
      try {
        long sent = System.nanoTime();
        asked.await();
        lease.answered(term, "nn2", sent);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    follower.start();
    assertThat(lease.await(TimeUnit.SECONDS.toNanos(30))).isTrue();
    follower.join();
  }

  @Test
  void aWaitWithoutAnswersGivesUpAtItsBound() throws Exception {
    ReadLease lease = new ReadLease(TimeUnit.SECONDS.toNanos(10), 3, System::nanoTime);
    CountDownLatch asked = new CountDownLatch(2);
    lease.appender(term, "nn2", asked::countDown);
    lease.appender(term, "nn3", asked::countDown);
    long started = System.nanoTime();
    assertThat(lease.await(TimeUnit.MILLISECONDS.toNanos(50))).isFalse();
    assertThat(System.nanoTime() - started).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
    assertThat(asked.getCount()).as("both followers were asked for a heartbeat").isZero();

    lease.end();
    assertThat(lease.await(TimeUnit.SECONDS.toNanos(30))).as("not leading: refused at once").isFalse();
  }
}
