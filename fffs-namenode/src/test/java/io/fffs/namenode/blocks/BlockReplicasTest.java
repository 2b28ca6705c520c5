package io.fffs.namenode.blocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The newest last entry a block's writer reported decides which replicas are current, reported or not; the
 * replicas' standings in the write pipeline, as their DataNodes report them, decide their order.
 */
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

  @Test
  void afterARestartTheNewestPipelinesPrimaryComesFirstAndALeftOutReplicaLast() {
    BlockReplicas replicas = new BlockReplicas();
    // A restarted NameNode learns the replicas in the order their reports come: the left-out one, followers, then
    // the primary; all hold the same last entry (nothing was written since the pipeline changed).
    for (String uuid : List.of("left", "old", "behind", "ahead", "primary")) {
      replicas.reported(uuid, 100, 10);
    }
    replicas.standing("left", 7, 10, true);
    replicas.standing("old", 6, BlockReplicas.STAMPS, false);  // the primary of an older pipeline
    replicas.standing("behind", 7, 12, false);
    replicas.standing("ahead", 7, 15, false);
    replicas.standing("primary", 7, BlockReplicas.STAMPS, false);
    List<String> current = replicas.current(uuid -> true);
    assertThat(current).as("report order").containsExactly("left", "old", "behind", "ahead", "primary");
    assertThat(replicas.byStanding(current)).containsExactly("primary", "ahead", "behind", "old", "left");
    assertThat(replicas.leftOut("left")).isTrue();
    assertThat(replicas.leftOut("primary")).isFalse();

    // A replacement placed by this NameNode stands nowhere until its DataNode reports: after the current pipeline's
    // members, which keep their standing; once opened as a follower of the newest pipeline it goes by its frontier.
    replicas.placed(List.of("new"));
    replicas.reported("new", 100, 10);
    List<String> withNew = replicas.current(uuid -> true);
    assertThat(replicas.byStanding(withNew)).containsExactly("primary", "ahead", "behind", "old", "new", "left");
    replicas.standing("new", 7, 14, false);
    assertThat(replicas.byStanding(withNew)).containsExactly("primary", "ahead", "new", "behind", "old", "left");
    assertThat(replicas.leftOut("left")).isTrue();
  }

  @Test
  void aNewBlocksPrimaryComesFirstBeforeItsStandingIsReported() {
    // The writer's fsync names all three current; only f2's report of its open in the first pipeline is in.
    BlockReplicas replicas = placedAndCurrent("primary", "f1", "f2");
    replicas.standing("f2", 7, 12, false);
    List<String> current = replicas.current(uuid -> true);
    assertThat(replicas.byStanding(current)).as("the placed primary stands in the first pipeline, stamping")
        .containsExactly("primary", "f2", "f1");

    replicas.standing("f1", 7, 15, false);
    replicas.standing("primary", 7, BlockReplicas.STAMPS, false);
    assertThat(replicas.byStanding(current)).containsExactly("primary", "f1", "f2");
    // A follower took over in a newer pipeline: its report puts it first at once.
    replicas.standing("f1", 9, BlockReplicas.STAMPS, false);
    assertThat(replicas.byStanding(current)).containsExactly("f1", "primary", "f2");
  }

  @Test
  void aFirstPrimaryThatNeverReportedIsNotListedFirstOnceAnotherReportsStampingIt() {
    BlockReplicas replicas = placedAndCurrent("primary", "f1", "f2");
    // The primary was lost before its report came in; f1 stamps the block in a newer pipeline.
    replicas.standing("f1", 9, BlockReplicas.STAMPS, false);
    replicas.standing("f2", 9, 12, false);
    assertThat(replicas.byStanding(replicas.current(uuid -> true))).as("the fenced first primary goes last")
        .containsExactly("f1", "f2", "primary");
  }

  @Test
  void aDataNodeAddedToAPipelineIsNeverTakenForThePrimary() {
    BlockReplicas replicas = new BlockReplicas();
    // The NameNode restarted: the first it hears of the block is a replacement added to the writer's pipeline.
    replicas.placed(List.of("replacement"), false);
    replicas.reported("replacement", 1024, 10);
    replicas.reported("follower", 1024, 10);
    replicas.standing("follower", 7, 12, false);
    assertThat(replicas.byStanding(replicas.current(uuid -> true))).as("an unreported replacement goes behind")
        .containsExactly("follower", "replacement");
  }

  @Test
  void aReplicaPlacedAgainForgetsWhereItStood() {
    BlockReplicas replicas = new BlockReplicas();
    replicas.placed(List.of("a", "b"));
    replicas.standing("a", 7, 10, true);
    replicas.standing("b", 7, BlockReplicas.STAMPS, false);
    replicas.placed(List.of("a"));
    assertThat(replicas.leftOut("a")).isFalse();
    assertThat(replicas.byStanding(List.of("a", "b"))).as("b keeps its newer epoch").containsExactly("b", "a");
  }

  /** A new block placed on {@code uuids} (the primary first), each replica current, none with a standing reported. */
  private static BlockReplicas placedAndCurrent(String... uuids) {
    BlockReplicas replicas = new BlockReplicas();
    replicas.placed(List.of(uuids));
    for (String uuid : uuids) {
      replicas.reported(uuid, 1024, 10);
    }
    return replicas;
  }
}
