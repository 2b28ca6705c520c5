package io.fffs.common.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.time.ManualPhysicalClock;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An issuer that keeps its keys in a store: every set is kept before it is used, and rolls come from outside. */
class BlockTokenIssuerTest {
  private static final long MINUTE_MS = 60_000;
  private final ManualPhysicalClock clock = new ManualPhysicalClock(1_800_000_000_000_000L);
  private final BlockTokenIssuer issuer = new BlockTokenIssuer(true, 10 * MINUTE_MS, 60 * MINUTE_MS, clock);
  private final List<BlockKeySet> kept = new ArrayList<>();

  @Test
  void eachSetIsKeptBeforeItSignsAndAFailedKeepChangesNothing() throws IOException {
    issuer.keepIn(kept::add, null);
    assertThat(kept).containsExactly(issuer.keys());
    issuer.roll();
    assertThat(kept).hasSize(2).last().isEqualTo(issuer.keys());

    BlockKeySet before = issuer.keys();
    BlockTokenIssuer restarted = new BlockTokenIssuer(true, 10 * MINUTE_MS, 60 * MINUTE_MS, clock);
    restarted.keepIn(kept::add, before);
    assertThat(restarted.keys()).isEqualTo(before);  // a live kept set is taken as it is, not kept again
    assertThat(kept).hasSize(2);
    BlockTokenIssuer broken = new BlockTokenIssuer(true, 10 * MINUTE_MS, 60 * MINUTE_MS, clock);
    broken.keepIn(keys -> {
      if (!keys.equals(before)) {
        throw new IOException("disk gone");
      }
    }, before);
    assertThatThrownBy(broken::roll).hasMessage("disk gone");
    assertThat(broken.keys()).isEqualTo(before);
    assertThat(broken.issue(1, BlockAccessMode.READ, "bob").keyId()).isEqualTo(before.current().keyId());
  }

  @Test
  void aKeptIssuerDoesNotRollOnItsOwnAndItsLateTokensDieWithTheirKey() throws IOException {
    issuer.keepIn(kept::add, null);
    BlockKey current = issuer.keys().current();
    clock.advance(65 * MINUTE_MS * 1000);  // 5 minutes past the roll
    assertThat(issuer.rollDue()).isTrue();
    BlockToken late = issuer.issue(1, BlockAccessMode.READ, "bob");
    assertThat(late.keyId()).isEqualTo(current.keyId());
    assertThat(late.expiryMillis()).isEqualTo(current.expiryMillis());  // 5 minutes left, not 10
    assertThat(kept).hasSize(1);
    issuer.roll();
    assertThat(issuer.rollDue()).isFalse();
    assertThat(issuer.issue(1, BlockAccessMode.READ, "bob").keyId()).isNotEqualTo(current.keyId());
  }

  @Test
  void aKeptSetWhoseCurrentKeyExpiredIsReplacedAndTheNewOneKept() throws IOException {
    BlockKeySet old = issuer.keys();
    clock.advance(3 * 60 * MINUTE_MS * 1000);
    BlockTokenIssuer restarted = new BlockTokenIssuer(true, 10 * MINUTE_MS, 60 * MINUTE_MS, clock);
    restarted.keepIn(kept::add, old);
    assertThat(restarted.keys()).isNotEqualTo(old);
    assertThat(kept).containsExactly(restarted.keys());
  }

  @Test
  void replacingAllKeysKeepsTheNewSetFirstAndExportsNoOldKey() throws IOException {
    issuer.keepIn(kept::add, null);
    BlockKeySet before = issuer.keys();
    issuer.replaceAllKeys();
    BlockKeySet after = issuer.keys();
    assertThat(kept).hasSize(2).last().isEqualTo(after);
    assertThat(after.retired()).isEmpty();
    java.util.Set<Integer> exported = new java.util.HashSet<>();
    issuer.exportKeys().getKeysList().forEach(key -> exported.add(key.getKeyId()));
    assertThat(exported).containsExactlyInAnyOrder(after.current().keyId(), after.next().keyId())
        .doesNotContain(before.current().keyId(), before.next().keyId());
    assertThat(issuer.issue(1, BlockAccessMode.READ, "bob").keyId()).isEqualTo(after.current().keyId());
    assertThat(issuer.rollDue()).isFalse();
  }
}
