package io.fffs.common.history;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class MomentSetTest {
  @Test
  void unionMergesOverlappingAndAdjacentIntervals() {
    MomentSet set = MomentSet.of(10, 20, 30, 40).union(MomentSet.of(20, 25, 38, 50));
    assertThat(set.intervalCount()).isEqualTo(2);
    assertThat(set.start(0)).isEqualTo(10);
    assertThat(set.end(0)).isEqualTo(25);
    assertThat(set.start(1)).isEqualTo(30);
    assertThat(set.end(1)).isEqualTo(50);
  }

  @Test
  void intersectKeepsOnlyCommonMoments() {
    MomentSet window = MomentSet.from(100);
    MomentSet points = MomentSet.of(5, 6, 99, 100, 150, 151, 300, 400);
    MomentSet both = window.intersect(points);
    assertThat(both).isEqualTo(MomentSet.of(150, 151, 300, 400));
    assertThat(both.floor()).isEqualTo(MomentSet.END);
    assertThat(window.floor()).isEqualTo(100);
  }

  @Test
  void containsAndIntersectsRespectHalfOpenBounds() {
    MomentSet set = MomentSet.of(10, 20, 30, MomentSet.END);
    assertThat(set.contains(9)).isFalse();
    assertThat(set.contains(10)).isTrue();
    assertThat(set.contains(19)).isTrue();
    assertThat(set.contains(20)).isFalse();
    assertThat(set.contains(Long.MAX_VALUE - 1)).isTrue();
    assertThat(set.intersects(20, 30)).isFalse();
    assertThat(set.intersects(19, 30)).isTrue();
    assertThat(set.intersects(25, 31)).isTrue();
    assertThat(set.intersects(25, 25)).isFalse();
  }

  @Test
  void nearestMomentsAroundAGap() {
    MomentSet set = MomentSet.of(10, 20, 30, 31, 50, MomentSet.END);
    assertThat(set.latestBefore(25)).isEqualTo(19);
    assertThat(set.earliestAfter(25)).isEqualTo(30);
    assertThat(set.earliestAfter(30)).isEqualTo(50);
    assertThat(set.latestBefore(10)).isEqualTo(-1);
    assertThat(set.latestBefore(15)).isEqualTo(14);
  }

  @Test
  void operationsAgreeWithAMomentByMomentModel() {
    Random random = new Random(31);
    for (int round = 0; round < 200; round++) {
      boolean[] a = new boolean[64];
      boolean[] b = new boolean[64];
      MomentSet setA = randomSet(random, a);
      MomentSet setB = randomSet(random, b);
      MomentSet union = setA.union(setB);
      MomentSet intersection = setA.intersect(setB);
      for (int m = 0; m < 64; m++) {
        assertThat(union.contains(m)).as("union at %d of %s and %s", m, setA, setB).isEqualTo(a[m] || b[m]);
        assertThat(intersection.contains(m)).as("intersection at %d", m).isEqualTo(a[m] && b[m]);
      }
      assertThat(union.containsAll(setA)).isTrue();
      assertThat(setA.containsAll(intersection)).isTrue();
      assertThat(MomentSet.fromProto(union.toProto())).isEqualTo(union);
    }
  }

  private static MomentSet randomSet(Random random, boolean[] moments) {
    MomentSet.Builder builder = new MomentSet.Builder();
    for (int i = 0; i < 4; i++) {
      int from = random.nextInt(64);
      int to = from + random.nextInt(10);
      builder.add(from, to);
      for (int m = from; m < Math.min(64, to); m++) {
        moments[m] = true;
      }
    }
    return builder.build();
  }
}
