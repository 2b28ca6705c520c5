package io.fffs.datanode.store.log;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PageVersionIndexTest {
  @Test
  void aPageWithOneVersionIsVisibleFromItsEntryOn() {
    PageVersionIndex index = new PageVersionIndex();
    index.add(3, 5);

    assertThat(index.versionAt(3, 4)).isEqualTo(-1);
    assertThat(index.versionAt(3, 5)).isEqualTo(5);
    assertThat(index.versionAt(3, 1_000)).isEqualTo(5);
    assertThat(index.versionAt(2, 1_000)).as("a page never written").isEqualTo(-1);
    assertThat(index.versionAt(400, 1_000)).as("beyond every page").isEqualTo(-1);
  }

  @Test
  void theVersionAtALogIndexIsTheLastOneAtOrBelowIt() {
    PageVersionIndex index = new PageVersionIndex();
    for (int entry = 1; entry <= 100; entry += 3) { // versions at 1, 4, 7, ..., 100
      index.add(0, entry);
      index.add(1000, entry + 1);
    }

    assertThat(index.versionAt(0, 0)).isEqualTo(-1);
    assertThat(index.versionAt(0, 1)).isEqualTo(1);
    assertThat(index.versionAt(0, 3)).isEqualTo(1);
    assertThat(index.versionAt(0, 4)).isEqualTo(4);
    assertThat(index.versionAt(0, 99)).isEqualTo(97);
    assertThat(index.versionAt(0, 5_000)).isEqualTo(100);
    assertThat(index.versionAt(1000, 1)).isEqualTo(-1);
    assertThat(index.versionAt(1000, 50)).isEqualTo(50);
  }

  @Test
  void oneVersionPerPageCostsFourBytesAPageAndSlackStaysSmall() {
    PageVersionIndex index = new PageVersionIndex();
    int pages = 16_384;
    for (int page = 0; page < pages; page++) {
      index.add(page, page / 16);
    }
    assertThat(index.memoryBytes()).isLessThan((long) (4 * pages * 1.3));
  }
}
