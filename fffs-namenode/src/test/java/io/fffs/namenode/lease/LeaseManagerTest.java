package io.fffs.namenode.lease;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LeaseManagerTest {
  private static final long SOFT = 1_000;
  private static final long HARD = 10_000;

  private final AtomicLong now = new AtomicLong();
  private final LeaseManager leases = new LeaseManager(now::get, SOFT, HARD);

  @Test
  void aFileIsHardExpiredOnlyWhileItsCurrentHolderHasNotRenewedForTheHardLimit() {
    leases.add("a", 1);
    now.addAndGet(HARD + 1);
    assertThat(leases.hardExpiredFiles()).containsExactly(1L);
    assertThat(leases.hardExpired(1)).isTrue();

    leases.renew("a");
    assertThat(leases.hardExpired(1)).as("renewed since the list was taken").isFalse();

    now.addAndGet(HARD + 1);
    assertThat(leases.hardExpired(1)).isTrue();
    leases.add("b", 1);  // another client takes the file over
    assertThat(leases.hardExpired(1)).as("a fresh lease of another holder").isFalse();
    assertThat(leases.holder(1)).isEqualTo("b");

    leases.remove(1);
    assertThat(leases.hardExpired(1)).as("no lease at all").isFalse();
    assertThat(leases.hardExpiredFiles()).isEmpty();
  }
}
