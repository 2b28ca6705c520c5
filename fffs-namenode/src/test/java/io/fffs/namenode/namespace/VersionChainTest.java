package io.fffs.namenode.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

class VersionChainTest {
  private static VersionChain<String> chain(long... hlcs) {
    VersionChain<String> chain = new VersionChain<>();
    for (long hlc : hlcs) {
      chain.add(hlc, "v" + hlc);
    }
    return chain;
  }

  @Test
  void anEmptyChainHasNothingAtAnyLimit() {
    VersionChain<String> chain = new VersionChain<>();
    assertThat(chain.indexAt(Long.MAX_VALUE)).isEqualTo(-1);
    assertThat(chain.at(Long.MAX_VALUE)).isNull();
    assertThat(chain.latest()).isNull();
    assertThat(chain.latestHlc()).isEqualTo(-1);
    assertThat(chain.size()).isZero();
  }

  @Test
  void aValueHoldsFromItsHlcUntilTheNext() {
    VersionChain<String> chain = chain(10, 20, 30, 40, 50);
    assertThat(chain.indexAt(9)).as("before the first version").isEqualTo(-1);
    assertThat(chain.at(9)).isNull();
    assertThat(chain.indexAt(10)).as("exactly at the first").isZero();
    assertThat(chain.indexAt(19)).isZero();
    assertThat(chain.indexAt(20)).isEqualTo(1);
    assertThat(chain.at(31)).isEqualTo("v30");
    assertThat(chain.indexAt(49)).isEqualTo(3);
    assertThat(chain.indexAt(50)).as("exactly at the last").isEqualTo(4);
    assertThat(chain.at(Long.MAX_VALUE)).isEqualTo("v50");
    assertThat(chain.latest()).isEqualTo("v50");
    assertThat(chain.latestHlc()).isEqualTo(50);
  }

  @Test
  void ofTwoValuesAtOneHlcTheLaterWins() {
    VersionChain<String> chain = new VersionChain<>();
    chain.add(10, "a");
    chain.add(20, "tombstone");
    chain.add(20, "renamed");
    chain.add(30, "d");
    assertThat(chain.at(19)).isEqualTo("a");
    assertThat(chain.indexAt(20)).isEqualTo(2);
    assertThat(chain.at(29)).isEqualTo("renamed");
  }

  @Test
  void anHlcBeforeTheLastIsRefusedAndLeavesTheChainAsItWas() {
    VersionChain<String> chain = chain(10, 20);
    assertThatThrownBy(() -> chain.add(19, "late")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("HLC went backwards: 19 after 20");
    assertThat(chain.size()).isEqualTo(2);
    assertThat(chain.latest()).isEqualTo("v20");
  }

  @Test
  void theBinarySearchAgreesWithALinearScanAtEveryLimit() {
    Random random = new Random(42);
    for (int round = 0; round < 50; round++) {
      int size = random.nextInt(70);
      long[] hlcs = new long[size];
      VersionChain<Integer> chain = new VersionChain<>();
      long hlc = random.nextInt(5);
      for (int i = 0; i < size; i++) {
        hlc += random.nextInt(3);  // steps of 0 (two values at one HLC), 1 and 2
        hlcs[i] = hlc;
        chain.add(hlc, i);
      }
      for (long limit = -1; limit <= hlc + 1; limit++) {
        int expected = -1;
        for (int i = 0; i < size; i++) {
          if (hlcs[i] <= limit) {
            expected = i;
          }
        }
        assertThat(chain.indexAt(limit)).as("round %d, limit %d", round, limit).isEqualTo(expected);
        assertThat(chain.at(limit)).isEqualTo(expected < 0 ? null : expected);
      }
    }
  }
}
