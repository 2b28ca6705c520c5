package io.fffs.datanode.store.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class AscendingLongSetTest {
  @Test
  void theSmallestMemberIsTheOldestNotRemoved() {
    AscendingLongSet set = new AscendingLongSet();
    set.add(10);
    set.add(20);
    set.add(30);
    assertThat(set.remove(20)).isTrue();
    assertThat(set.remove(20)).as("removed twice").isFalse();
    assertThat(set.remove(25)).as("never added").isFalse();
    assertThat(set.first()).isEqualTo(10);
    assertThat(set.remove(10)).isTrue();
    assertThat(set.first()).isEqualTo(30);
    assertThat(set.size()).isEqualTo(1);
    assertThat(set.remove(30)).isTrue();
    assertThat(set.isEmpty()).isTrue();
    assertThatThrownBy(set::first).isInstanceOf(NoSuchElementException.class);
  }

  @Test
  void theLastMemberRemovedMayBeAddedAgainButNothingBelowTheLastMember() {
    AscendingLongSet set = new AscendingLongSet();
    set.add(5);
    set.add(9);
    set.remove(9);
    set.add(9); // the arena hands a released range's slots out again
    assertThat(set.size()).isEqualTo(2);
    assertThatThrownBy(() -> set.add(7)).isInstanceOf(IllegalStateException.class).hasMessageContaining("ascend");
    assertThatThrownBy(() -> set.add(9)).isInstanceOf(IllegalStateException.class);
    assertThat(set.size()).isEqualTo(2);
    assertThat(set.first()).isEqualTo(5);
  }

  @Test
  void manyMembersRemovedInAnyOrderMatchATreeSet() {
    AscendingLongSet set = new AscendingLongSet();
    TreeSet<Long> model = new TreeSet<>();
    List<Long> members = new ArrayList<>();
    Random random = new Random(7);
    long next = 0;
    // Far more members than the first arrays hold, with backlogs that make them grow and later compact.
    for (int round = 0; round < 40; round++) {
      int adds = random.nextInt(3000);
      for (int i = 0; i < adds; i++) {
        next += 1 + random.nextInt(3);
        set.add(next);
        model.add(next);
        members.add(next);
      }
      if (random.nextInt(4) == 0 && !model.isEmpty()) {
        long last = model.last(); // removed from the top, as a released range is
        assertThat(set.remove(last)).isTrue();
        model.remove(last);
        members.remove(Long.valueOf(last));
        next = last - 1;
      }
      Collections.shuffle(members, random);
      int removes = random.nextInt(members.size() + 1);
      for (long value : members.subList(0, removes)) {
        assertThat(set.remove(value)).isTrue();
        model.remove(value);
      }
      members.subList(0, removes).clear();
      assertThat(set.remove(next + 1)).isFalse();
      assertThat(set.size()).as("round %d", round).isEqualTo(model.size());
      if (!model.isEmpty()) {
        assertThat(set.first()).as("round %d", round).isEqualTo(model.first());
      }
    }
  }
}
