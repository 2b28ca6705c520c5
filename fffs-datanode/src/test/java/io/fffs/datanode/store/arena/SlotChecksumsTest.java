package io.fffs.datanode.store.arena;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Which pages' chunk CRCs a write leaves with their slots, and that a reused slot or sequence number has none. */
class SlotChecksumsTest {
  private static final int PAGE = 2048;  // 4 chunks

  private static int[] chunks(int count, int base) {
    return IntStream.range(0, count).map(i -> base + i).toArray();
  }

  @Test
  void keepsThePagesAWriteCoversWholeOnAChunkBoundary() {
    SlotChecksums kept = new SlotChecksums(8, PAGE);
    // 3 pages' worth from block offset 1024: page 0 in part, page 1 whole, page 2 in part
    kept.keep(10, 1024, 2 * PAGE, chunks(8, 100));
    int[] dst = new int[4];
    assertThat(kept.copy(10, dst, 0)).isFalse();
    assertThat(kept.copy(11, dst, 0)).isTrue();
    assertThat(dst).containsExactly(102, 103, 104, 105);
    assertThat(kept.copy(12, dst, 0)).isFalse();
  }

  @Test
  void keepsNothingOffAChunkBoundaryOrWithoutCrcs() {
    SlotChecksums kept = new SlotChecksums(8, PAGE);
    kept.keep(0, 100, 4 * PAGE, chunks(17, 0));
    kept.keep(5, 0, PAGE, null);
    int[] dst = new int[4];
    for (long seq = 0; seq < 6; seq++) {
      assertThat(kept.copy(seq, dst, 0)).isFalse();
    }
  }

  @Test
  void aSlotReusedOrASequenceNumberHandedOutAgainHasNoneOfTheOldCrcs() {
    SlotChecksums kept = new SlotChecksums(4, PAGE);
    kept.keep(1, 0, PAGE, chunks(4, 0));
    kept.keep(5, 0, PAGE, chunks(4, 50));  // slot 1 again
    int[] dst = new int[8];
    assertThat(kept.copy(1, dst, 0)).isFalse();
    assertThat(kept.copy(5, dst, 4)).isTrue();
    assertThat(dst).containsExactly(0, 0, 0, 0, 50, 51, 52, 53);
    kept.forget(5, 1);
    assertThat(kept.copy(5, dst, 0)).isFalse();
  }
}
