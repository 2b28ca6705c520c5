package io.fffs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import java.io.IOException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which failures of a replica move a read on to the next one, and what a reader hears when all fail. */
class ReplicaFailoverTest {
  private static final List<DatanodeIdProto> REPLICAS = List.of(dn("a", "10.0.0.1"), dn("b", "10.0.0.2"),
      dn("c", "10.0.0.3"));

  private static DatanodeIdProto dn(String uuid, String host) {
    return DatanodeIdProto.newBuilder().setDatanodeUuid(uuid).setHost(host).setDataPort(9866).setIpcPort(0).build();
  }

  private final List<String> tried = new ArrayList<>();
  private final Set<String> failed = new HashSet<>();

  /** Replica a fails with {@code first}; the others answer with their name. */
  private String readWhenTheFirstFails(IOException first) throws IOException {
    return ReplicaFailover.run("/f", 7, REPLICAS, failed, replica -> {
      tried.add(replica.getDatanodeUuid());
      if (replica.getDatanodeUuid().equals("a")) {
        throw first;
      }
      return replica.getDatanodeUuid();
    });
  }

  @Test
  void aCrcMismatchAConnectionErrorAShortAnswerOrAStaleReplicaMoveOn() throws IOException {
    List<IOException> failures = List.of(new FffsException(ErrorCode.CORRUPT, "CRC32C mismatch"),
        new ConnectException("Connection refused"),
        new FffsException(ErrorCode.CORRUPT, "block 7 returned 10 bytes where 20 existed"),
        new FffsException(ErrorCode.REPLICA_STALE, "known only up to ..."),
        new IOException("not acknowledged within 60000 ms"));
    for (IOException failure : failures) {
      tried.clear();
      failed.clear();
      assertThat(readWhenTheFirstFails(failure)).as(failure.toString()).isEqualTo("b");
      assertThat(tried).containsExactly("a", "b");
      assertThat(failed).containsExactly("a");
    }
    assertThat(ReplicaOrder.order(REPLICAS, failed, replica -> false)).extracting(DatanodeIdProto::getDatanodeUuid)
        .as("a replica that failed is tried last").containsExactly("b", "c", "a");
  }

  @Test
  void aDataNodeSeenWithAClockBeyondTheMaxOffsetIsReadAfterTheOthersButBeforeFailedOnes() {
    assertThat(ReplicaOrder.order(REPLICAS, Set.of("a"), replica -> replica.getDatanodeUuid().equals("b")))
        .extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("c", "b", "a");
    List<DatanodeIdProto> localSkewed = List.of(dn("far", "10.0.0.4"), dn("local", "127.0.0.1"));
    assertThat(ReplicaOrder.order(localSkewed, Set.of(), replica -> replica.getDatanodeUuid().equals("local")))
        .as("even on this host").extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("far", "local");
    assertThat(ReplicaOrder.order(localSkewed, Set.of(), replica -> false))
        .extracting(DatanodeIdProto::getDatanodeUuid).containsExactly("local", "far");
  }

  @Test
  void aChecksumFailureIsReportedAsABadReplicaButAShortAnswerOrAnOutageIsNot() throws IOException {
    List<String> reported = new ArrayList<>();
    ReplicaFailover.BadReplicas bad = (blockId, replica, reason) -> reported.add(blockId + "@"
        + replica.getDatanodeUuid());
    List<IOException> failures = List.of(new FffsException(ErrorCode.CORRUPT, "CRC32C mismatch"),
        new ReplicaFailover.ShortAnswer("block 7 returned 10 bytes where 20 existed"),
        new ConnectException("Connection refused"), new FffsException(ErrorCode.REPLICA_STALE, "known only up to"));
    for (IOException failure : failures) {
      String answer = ReplicaFailover.run("/f", 7, REPLICAS, new HashSet<>(), replica -> {
        if (replica.getDatanodeUuid().equals("a")) {
          throw failure;
        }
        return replica.getDatanodeUuid();
      }, bad);
      assertThat(answer).isEqualTo("b");
    }
    assertThat(reported).containsExactly("7@a");
  }

  @Test
  void whatEveryReplicaWouldAnswerIsNotRetried() {
    for (ErrorCode code : List.of(ErrorCode.TIME_IN_FUTURE, ErrorCode.INVALID_ARGUMENT, ErrorCode.ACCESS_DENIED)) {
      tried.clear();
      assertThatThrownBy(() -> readWhenTheFirstFails(new FffsException(code, "no")))
          .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(code));
      assertThat(tried).containsExactly("a");
    }
  }

  @Test
  void whenEveryReplicaFailsTheErrorNamesEach() {
    assertThatThrownBy(() -> ReplicaFailover.run("/f", 7, REPLICAS, failed, replica -> {
      throw new FffsException(ErrorCode.CORRUPT, "bad chunk at " + replica.getDatanodeUuid());
    })).isInstanceOfSatisfying(FffsException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT);
      assertThat(e.detail()).startsWith("no replica of block 7 of /f could be read: 10.0.0.1:9866: ")
          .contains("10.0.0.2:9866: CORRUPT: bad chunk at b").contains("10.0.0.3:9866");
      assertThat(e.getSuppressed()).hasSize(3);
    });
    assertThat(failed).containsExactlyInAnyOrder("a", "b", "c");
  }
}
