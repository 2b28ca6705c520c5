package io.fffs.namenode.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Ids a change allocates and then does not log (it failed part way) are given back: the namespace's counters stay
 * those its log replays to, so a NameNode's image equals that of one that only replayed the log (an HA follower).
 */
class AllocatedIdsTest extends NamesystemTestBase {
  private static final long DEAD_NANOS = TimeUnit.SECONDS.toNanos(31);

  private void heartbeat(String uuid) throws FffsException {
    nn.fs.datanodes().heartbeat(uuid, 0, 1L << 30, 0, 0, HlcTimestamp.ZERO, null);
  }

  @Test
  void aRestoreThatFailsPartWayKeepsNoBlockIdItAllocated() throws Exception {
    nn.writeFile("/src/a", 10);  // its block on dn-1
    nn.nanos.addAndGet(DEAD_NANOS);
    nn.fs.datanodes().register(DatanodeIdProto.newBuilder().setDatanodeUuid("dn-2").setHost("127.0.0.2")
        .setDataPort(50010).setIpcPort(0).build(), 1L << 30, 0);
    nn.writeFile("/src/b", 10);  // dn-1 is dead: its block on dn-2
    nn.nanos.addAndGet(DEAD_NANOS);
    heartbeat("dn-1");  // dn-1 is back, dn-2 is dead: /src/a can be copied, /src/b cannot
    nn.advance(1_000);
    long blocks = nn.fs.blockCount();
    long at = nn.fs.clock().now().physicalMicros();
    nn.advance(1_000);
    assertThatThrownBy(() -> nn.fs.restores.restore(NamesystemFixture.ADMIN, "/src", TimeSpec.system(at),
        "/copy")).isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code())
        .isEqualTo(ErrorCode.NO_DATANODE));
    assertThat(nn.fs.blockCount()).as("block ids allocated by the failed restore").isEqualTo(blocks);
  }
}
