package io.fffs.common.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import org.junit.jupiter.api.Test;

class RetentionRuleTest {
  private static final long HOUR = 3_600_000_000L;
  private static final long DAY = 24 * HOUR;

  @Test
  void textFormRoundTrips() throws Exception {
    RetentionRule rule = RetentionRule.parse("1h, 1h/1d 1d/30d 3v");
    assertThat(rule.keepForMicros()).isEqualTo(HOUR);
    assertThat(rule.keepVersions()).isEqualTo(3);
    assertThat(rule.tiers()).containsExactly(new RetentionRule.Tier(HOUR, DAY),
        new RetentionRule.Tier(DAY, 30 * DAY));
    assertThat(rule.toString()).isEqualTo("1h 1h/1d 1d/30d 3v");
    assertThat(RetentionRule.parse(rule.toString())).isEqualTo(rule);
    assertThat(RetentionRule.fromProto(rule.toProto())).isEqualTo(rule);
    assertThat(RetentionRule.parse("none")).isSameAs(RetentionRule.KEEP_ALL);
    assertThat(RetentionRule.parse("1500ms").toString()).isEqualTo("1500ms");
  }

  @Test
  void malformedRulesAreRefusedNamingTheTerm() {
    assertThatThrownBy(() -> RetentionRule.parse("1 hour")).isInstanceOf(FffsException.class)
        .hasMessageContaining("INVALID_ARGUMENT").hasMessageContaining("'1'");
    assertThatThrownBy(() -> RetentionRule.parse("1h 2h")).hasMessageContaining("second window");
    assertThatThrownBy(() -> RetentionRule.parse("1s/30d")).hasMessageContaining("more than");
    assertThatThrownBy(() -> RetentionRule.parse("")).satisfies(
        e -> assertThat(((FffsException) e).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
  }

  @Test
  void momentsAreTheWindowAndTheAlignedTierMomentsBelowIt() throws Exception {
    RetentionRule rule = RetentionRule.parse("2h 1h/6h");
    long now = 1000 * DAY + 30 * 60_000_000L;  // half past midnight
    MomentSet kept = rule.moments(now);
    assertThat(kept.floor()).isEqualTo(now - 2 * HOUR);
    // Hourly moments from 6 h ago up to the window: 19:00 .. 22:00 of the day before (22:30 starts the window).
    assertThat(kept.intervalCount()).isEqualTo(5);
    for (int i = 0; i < 4; i++) {
      assertThat(kept.contains(1000 * DAY - (5 - i) * HOUR)).isTrue();
    }
    assertThat(kept.contains(1000 * DAY - 5 * HOUR + 1)).isFalse();
    // An hour later the same moments are still kept, except the one that aged out.
    MomentSet later = rule.moments(now + HOUR);
    assertThat(later.contains(1000 * DAY - 5 * HOUR)).isFalse();
    assertThat(later.contains(1000 * DAY - 4 * HOUR)).isTrue();
    assertThat(RetentionRule.KEEP_ALL.moments(now).isAll()).isTrue();
  }

  @Test
  void keepsAgreesWithTheMomentsItKeeps() throws Exception {
    RetentionRule rule = RetentionRule.parse("90s 7s/5m 1m/1h");
    long now = 1000 * DAY + 12_345_678;
    MomentSet moments = rule.moments(now);
    java.util.Random random = new java.util.Random(3);
    for (int i = 0; i < 20_000; i++) {
      long micros = now - (long) (random.nextDouble() * 2 * HOUR);
      if (i % 3 == 0) {
        micros = micros / 7_000_000 * 7_000_000;  // on the fine tier's grid
      }
      assertThat(rule.keeps(now, micros)).as("at %d", micros).isEqualTo(moments.contains(micros));
      assertThat(rule.latestKeptBefore(now, micros)).as("before %d", micros).isEqualTo(moments.latestBefore(micros));
    }
  }
}
