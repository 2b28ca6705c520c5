package io.fffs.namenode.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.MkdirsOp;
import io.fffs.common.time.HlcTimestamp;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;

/**
 * {@link RatisJournal}'s queue on a fake Raft server that records what it is handed: one entry in flight, the ops
 * stamped meanwhile together as the next entry once it commits (bounded by ops and bytes), answers only after commit.
 */
class RatisJournalQueueTest {
  /** One entry handed to Raft: its txids, and which txids had been answered when it was handed over. */
  private record Submitted(List<Long> txids, List<Long> answeredBefore, CompletableFuture<RaftClientReply> reply) {}

  private final List<Submitted> submitted = new ArrayList<>();
  private final List<Long> answered = new ArrayList<>();
  private final List<IOException> refused = new ArrayList<>();
  private final AtomicInteger lost = new AtomicInteger();
  /** The entry (counted from 0) the fake server refuses as it is handed over; none by default. */
  private int refuseEntry = -1;
  private final RatisJournal journal = new RatisJournal(request -> {
    List<Long> txids = new ArrayList<>();
    try {
      for (HaEntry op : HaEntry.decodeAll(request.getMessage().getContent())) {
        txids.add(op.txid());
      }
    } catch (FffsException e) {
      throw new AssertionError(e);
    }
    CompletableFuture<RaftClientReply> reply = new CompletableFuture<>();
    if (submitted.size() == refuseEntry) {
      reply.completeExceptionally(new IOException("not the leader any more"));  // as Ratis refuses at once
    }
    submitted.add(new Submitted(txids, List.copyOf(answered), reply));
    return reply;
  }, RaftGroupId.randomId(), RaftPeerId.valueOf("nn1"), 0, lost::incrementAndGet);

  private static EditOpProto mkdirs(long txid, int pathBytes) {
    return EditOpProto.newBuilder().setMkdirs(MkdirsOp.newBuilder().setPath("/" + "d".repeat(pathBytes))
        .addInodeIds(1000 + txid).setPermission(0755).setOwner("o").setGroup("g")).build();
  }

  /** Appends {@code txid} (as a handler does under the write lock) and waits for its answer. */
  private void append(long txid, int pathBytes) throws FffsException {
    journal.append(txid, HlcTimestamp.valueOf(txid << 20), mkdirs(txid, pathBytes));
    journal.whenSynced(txid, () -> answered.add(txid), refused::add);
  }

  private static List<Long> range(long first, long last) {
    List<Long> txids = new ArrayList<>();
    for (long t = first; t <= last; t++) {
      txids.add(t);
    }
    return txids;
  }

  @Test
  void opsStampedWhileAnEntryIsInFlightGoTogetherAsTheNextOnceItCommitsAndAreAnsweredOnlyAfterTheirCommit()
      throws FffsException {
    append(1, 4);
    journal.flush();
    assertThat(submitted).extracting(Submitted::txids).containsExactly(List.of(1L));

    append(2, 4);
    journal.flush();
    append(3, 4);
    journal.flush();
    assertThat(submitted).as("one entry in flight: 2 and 3 wait for its commit").hasSize(1);
    assertThat(answered).as("nothing is answered before its commit").isEmpty();
    assertThat(journal.isSynced(1)).isFalse();

    journal.committed(1);
    assertThat(submitted).extracting(Submitted::txids).containsExactly(List.of(1L), List.of(2L, 3L));
    assertThat(submitted.get(1).answeredBefore()).as("the next entry goes to Raft before the answers").isEmpty();
    assertThat(answered).containsExactly(1L);

    journal.committed(3);
    assertThat(answered).containsExactly(1L, 2L, 3L);
    assertThat(submitted).as("nothing waits: no empty entry").hasSize(2);
    assertThat(journal.hasUncommitted()).isFalse();
    assertThat(refused).isEmpty();
    assertThat(lost).hasValue(0);
  }

  @Test
  void theNextEntryHoldsAtMost1024Ops() throws FffsException {
    append(1, 4);
    journal.flush();
    for (long txid = 2; txid <= 1030; txid++) {
      append(txid, 4);
      journal.flush();
    }
    journal.committed(1);
    assertThat(submitted).hasSize(2);
    assertThat(submitted.get(1).txids()).isEqualTo(range(2, 1025));
    journal.committed(1025);
    assertThat(submitted).hasSize(3);
    assertThat(submitted.get(2).txids()).isEqualTo(range(1026, 1030));
    assertThat(answered).isEqualTo(range(1, 1025));
  }

  @Test
  void theNextEntryHoldsAtMostOneMebibyteAndALargerOpGoesAlone() throws FffsException {
    append(1, 4);
    journal.flush();
    int third = 340 << 10;
    for (long txid = 2; txid <= 5; txid++) {
      append(txid, third);  // three fit in 1 MiB, a fourth does not
    }
    append(6, 1 << 20);  // larger than an entry's bound on its own
    append(7, 4);
    journal.flush();

    journal.committed(1);
    assertThat(submitted.get(1).txids()).containsExactly(2L, 3L, 4L);
    journal.committed(4);
    assertThat(submitted.get(2).txids()).containsExactly(5L);
    journal.committed(5);
    assertThat(submitted.get(3).txids()).containsExactly(6L);
    journal.committed(6);
    assertThat(submitted.get(4).txids()).containsExactly(7L);
    assertThat(answered).isEqualTo(range(1, 6));
  }

  @Test
  void aFailedAppendFailsEveryUncommittedChangeAndRefusesMore() throws FffsException {
    append(1, 4);
    journal.flush();
    append(2, 4);
    append(3, 4);
    journal.flush();

    submitted.get(0).reply().completeExceptionally(new IOException("not the leader any more"));
    assertThat(answered).isEmpty();
    assertThat(refused).hasSize(3).allSatisfy(e -> assertThat(((FffsException) e).code())
        .isEqualTo(ErrorCode.NOT_LEADER));
    assertThat(lost).hasValue(1);
    assertThatThrownBy(() -> append(4, 4)).isInstanceOf(FffsException.class)
        .extracting(e -> ((FffsException) e).code()).isEqualTo(ErrorCode.NOT_LEADER);

    journal.committed(1);  // a late commit hands nothing more to Raft
    assertThat(submitted).hasSize(1);
  }

  @Test
  void theNextEntryRefusedAsItIsHandedOverFailsOnlyItsOwnOpsNotTheCommittedOnes() throws FffsException {
    refuseEntry = 1;
    append(1, 4);
    journal.flush();
    append(2, 4);
    append(3, 4);
    journal.flush();

    journal.committed(1);  // hands 2 and 3 over before answering 1; Raft refuses them at once
    assertThat(submitted).hasSize(2);
    assertThat(answered).containsExactly(1L);
    assertThat(refused).hasSize(2);
    assertThat(lost).hasValue(1);
  }
}
