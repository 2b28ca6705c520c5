package io.fffs.namenode.blocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The newest last entry a block's writer reported decides which replicas are current, reported or not. */
class BlockReplicasTest {
  @Test
  void aReplicaBehindTheWritersLastEntryIsNotCurrentEvenWhenNoNewerOneReported() {
    AtomicLong expected = new AtomicLong();
    BlockReplicas replicas = new BlockReplicas(expected::get);
    replicas.placed(List.of("a", "b", "c"));
    replicas.reported("c", 100, 10);
    assertThat(replicas.current(uuid -> true)).containsExactly("c");

    // The writer overwrote in place (same length) through a and b; their reports are not in (a NameNode restart).
    expected.set(20);
    assertThat(replicas.current(uuid -> true)).as("c misses the overwrite").isEmpty();
    assertThat(replicas.staleCount(uuid -> true)).isEqualTo(3);

    replicas.reported("a", 100, 20);
    assertThat(replicas.current(uuid -> true)).containsExactly("a");
    assertThat(replicas.newestLength()).isEqualTo(100);
  }
}
