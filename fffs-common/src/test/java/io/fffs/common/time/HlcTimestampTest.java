package io.fffs.common.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.CommonProtos.HlcProto;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class HlcTimestampTest {
  private static final long NOV_21_2026_10H_MICROS = Instant.parse("2026-11-21T10:00:00Z").toEpochMilli() * 1000;

  @Test
  void packsPhysicalAboveLogical() {
    HlcTimestamp t = HlcTimestamp.of(NOV_21_2026_10H_MICROS + 250, 3);
    assertThat(t.physicalMicros()).isEqualTo(NOV_21_2026_10H_MICROS + 250);
    assertThat(t.logical()).isEqualTo(3);
    assertThat(t.packed()).isEqualTo((NOV_21_2026_10H_MICROS + 250) << 10 | 3);
    assertThat(HlcTimestamp.valueOf(t.packed())).isEqualTo(t);
  }

  @Test
  void printsIsoMicrosAndLogical() {
    assertThat(HlcTimestamp.of(NOV_21_2026_10H_MICROS + 250, 3)).hasToString("2026-11-21T10:00:00.000250Z+3");
    assertThat(HlcTimestamp.ZERO).hasToString("1970-01-01T00:00:00.000000Z+0");
  }

  @Test
  void ordersByPhysicalThenLogical() {
    HlcTimestamp a = HlcTimestamp.of(100, 5);
    HlcTimestamp b = HlcTimestamp.of(100, 6);
    HlcTimestamp c = HlcTimestamp.of(101, 0);
    assertThat(a).isLessThan(b);
    assertThat(b).isLessThan(c);
    assertThat(c.isAfter(a)).isTrue();
    assertThat(a.isBefore(c)).isTrue();
    assertThat(HlcTimestamp.max(a, c)).isSameAs(c);
    assertThat(a).isEqualTo(HlcTimestamp.of(100, 5)).hasSameHashCodeAs(HlcTimestamp.of(100, 5));
  }

  @Test
  void roundTripsThroughProto() {
    HlcTimestamp t = HlcTimestamp.of(NOV_21_2026_10H_MICROS, 1023);
    assertThat(HlcTimestamp.fromProto(t.toProto())).isEqualTo(t);
  }

  @Test
  void aMessagesTimestampBeyondTheYear2255IsATypedRefusal() throws Exception {
    HlcTimestamp t = HlcTimestamp.of(NOV_21_2026_10H_MICROS, 7);
    assertThat(HlcTimestamp.fromWire(t.toProto())).isEqualTo(t);
    // protobuf's uint64 arrives in Java as a long: the top bit set reads as negative
    HlcProto damaged = HlcProto.newBuilder().setPacked(-9148771233615509239L).build();
    assertThatThrownBy(() -> HlcTimestamp.fromWire(damaged)).isInstanceOf(FffsException.class)
        .satisfies(e -> assertThat(((FffsException) e).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("9297972840094042377").hasMessageContaining("damaged");
  }

  @Test
  void holdsTimesUntilTheYear2255() {
    HlcTimestamp last = HlcTimestamp.of(HlcTimestamp.MAX_PHYSICAL_MICROS, HlcTimestamp.MAX_LOGICAL);
    assertThat(last.packed()).isEqualTo(Long.MAX_VALUE);
    assertThat(last.toString()).startsWith("2255-");
  }

  @Test
  void refusesOutOfRangeParts() {
    assertThatThrownBy(() -> HlcTimestamp.of(1, 1024)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HlcTimestamp.of(-1, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HlcTimestamp.of(HlcTimestamp.MAX_PHYSICAL_MICROS + 1, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HlcTimestamp.valueOf(-5)).isInstanceOf(IllegalArgumentException.class);
  }
}
