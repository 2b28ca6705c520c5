package io.fffs.namenode.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ChildHistoryTest {
  @Test
  void aNameNeverBoundNamesNothing() {
    ChildHistory history = new ChildHistory();
    assertThat(history.at(Long.MAX_VALUE)).isEqualTo(Namespace.TOMBSTONE);
    assertThat(history.latest()).isEqualTo(Namespace.TOMBSTONE);
    assertThat(history.size()).isZero();
  }

  @Test
  void aNameBoundDeletedAndBoundAgainNamesEachInodeInItsOwnInterval() {
    ChildHistory history = new ChildHistory();
    history.add(100, 7);
    history.add(200, Namespace.TOMBSTONE);
    history.add(300, 9);
    assertThat(history.at(99)).as("before it was created").isEqualTo(Namespace.TOMBSTONE);
    assertThat(history.at(100)).isEqualTo(7);
    assertThat(history.at(199)).isEqualTo(7);
    assertThat(history.at(200)).as("deleted").isEqualTo(Namespace.TOMBSTONE);
    assertThat(history.at(299)).isEqualTo(Namespace.TOMBSTONE);
    assertThat(history.at(300)).isEqualTo(9);
    assertThat(history.latest()).isEqualTo(9);
    assertThat(history.size()).isEqualTo(3);
    assertThat(history.hlc(1)).isEqualTo(200);
    assertThat(history.inodeId(1)).isEqualTo(Namespace.TOMBSTONE);
  }

  @Test
  void aRenameOntoTheSameNameAtOneHlcEndsWithTheLaterEntry() {
    ChildHistory history = new ChildHistory();
    history.add(100, 7);
    history.add(150, Namespace.TOMBSTONE);
    history.add(150, 8);
    assertThat(history.at(150)).isEqualTo(8);
    assertThat(history.at(149)).isEqualTo(7);
  }

  @Test
  void anHlcBeforeTheLastIsRefused() {
    ChildHistory history = new ChildHistory();
    history.add(100, 7);
    assertThatThrownBy(() -> history.add(99, 8)).isInstanceOf(IllegalStateException.class);
    assertThat(history.size()).isEqualTo(1);
    assertThat(history.latest()).isEqualTo(7);
  }

  @Test
  void aLongHistoryGrowsAndStaysSearchable() {
    ChildHistory history = new ChildHistory();
    for (int i = 0; i < 1_000; i++) {
      history.add(10L * i, i % 2 == 0 ? i + 1 : Namespace.TOMBSTONE);
    }
    assertThat(history.size()).isEqualTo(1_000);
    for (int i = 0; i < 1_000; i++) {
      long expected = i % 2 == 0 ? i + 1 : Namespace.TOMBSTONE;
      assertThat(history.at(10L * i)).isEqualTo(expected);
      assertThat(history.at(10L * i + 9)).isEqualTo(expected);
    }
    assertThat(history.at(-1)).isEqualTo(Namespace.TOMBSTONE);
  }
}
