package io.fffs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.client.data.BlockInfo;
import io.fffs.client.data.BlockReadStream;
import io.fffs.client.data.BlockWriter;
import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.ReadResult;
import io.fffs.client.data.WriteOptions;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A stream whose listed replicas all fail for reasons of their own asks the NameNode for the block's replicas again
 * and reads from one listed then; damage, or no attempt left, ends the read with the replica's error.
 */
class ReadRelocationTest {
  private static final int LENGTH = 1000;
  private static final DatanodeIdProto STALE = dn("stale", "10.0.0.1");
  private static final DatanodeIdProto GOOD = dn("good", "10.0.0.2");

  private static DatanodeIdProto dn(String uuid, String host) {
    return DatanodeIdProto.newBuilder().setDatanodeUuid(uuid).setHost(host).setDataPort(9866).setIpcPort(0).build();
  }

  private static LocatedBlocksProto listing(DatanodeIdProto... replicas) {
    return LocatedBlocksProto.newBuilder().setFileLength(LENGTH).setUnderConstruction(false)
        .setVersionHlc(HlcProto.newBuilder().setPacked(1))
        .addBlocks(LocatedBlockProto.newBuilder().setOffset(0).addAllLocations(List.of(replicas))
            .setBlock(BlockProto.newBuilder().setBlockId(5).setNumBytes(LENGTH)))
        .build();
  }

  private final List<String> tried = new ArrayList<>();
  private final AtomicInteger listings = new AtomicInteger();

  /** Reads the whole file; the stale replica fails with {@code staleError}, the good one answers. */
  private byte[] read(IOException staleError, int attempts, LocatedBlocksProto... later) throws IOException {
    FileLayout layout = FileLayout.resolve("/f", listing(STALE), TimeSpec.system(5), null);
    FffsInputStream in = new FffsInputStream(layout, new Replicas(staleError), 4096, () -> {
      int n = listings.getAndIncrement();
      return later[Math.min(n, later.length - 1)];
    }, (blockId, replica, reason) -> { }, new ReadRelocation(attempts, 1));
    byte[] all = new byte[LENGTH];
    int n = in.read(all, 0, LENGTH);
    assertThat(n).isEqualTo(LENGTH);
    return all;
  }

  @Test
  void aStaleOnlyReplicaIsFollowedByANewListing() throws IOException {
    byte[] bytes = read(new FffsException(ErrorCode.REPLICA_STALE, "known only up to ..."), 3,
        listing(STALE), listing(STALE, GOOD));
    assertThat(bytes[LENGTH - 1]).isEqualTo((byte) (LENGTH - 1));
    assertThat(listings.get()).as("listings asked").isEqualTo(2);
    assertThat(tried).endsWith("good");
  }

  @Test
  void aReadEndsWithTheReplicasErrorOnceNoAttemptIsLeft() {
    assertThatThrownBy(() -> read(new FffsException(ErrorCode.REPLICA_STALE, "known only up to ..."), 2,
        listing(STALE))).isInstanceOfSatisfying(FffsException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.REPLICA_STALE));
    assertThat(listings.get()).isEqualTo(2);
  }

  @Test
  void damageIsNotListedAgain() {
    assertThatThrownBy(() -> read(new FffsException(ErrorCode.CORRUPT, "CRC32C mismatch"), 3, listing(GOOD)))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT));
    assertThat(listings.get()).isZero();
  }

  /** The stale replica fails every call; the good one holds bytes 0, 1, 2, ... as of any time. */
  private final class Replicas implements DataTransferClient {
    private final IOException staleError;

    Replicas(IOException staleError) {
      this.staleError = staleError;
    }

    @Override
    public ReadResult read(DatanodeIdProto datanode, long blockId, BlockToken token, long offset, ByteBuffer dst,
        TimeSpec time) throws IOException {
      tried.add(datanode.getDatanodeUuid());
      if (datanode.equals(STALE)) {
        throw staleError;
      }
      int n = (int) Math.min(dst.remaining(), LENGTH - offset);
      for (int i = 0; i < n; i++) {
        dst.put(dst.position() + i, (byte) (offset + i));
      }
      return new ReadResult(n, LENGTH, HlcTimestamp.ZERO);
    }

    @Override
    public BlockReadStream openStream(DatanodeIdProto datanode, long blockId, BlockToken token, long offset,
        long end, TimeSpec time) throws IOException {
      throw new IOException("no streams here: reads go through read()");
    }

    @Override
    public String transport() {
      return "fake";
    }

    @Override
    public BlockWriter openWriter(DatanodeIdProto datanode, long blockId, BlockToken token, WriteOptions options) {
      throw new UnsupportedOperationException();
    }

    @Override
    public BlockWriter openWriter(List<DatanodeIdProto> datanodes, long blockId, BlockToken token,
        WriteOptions options) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long truncate(List<DatanodeIdProto> datanodes, long blockId, BlockToken token, long newLength) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long truncate(DatanodeIdProto datanode, long blockId, BlockToken token, long newLength) {
      throw new UnsupportedOperationException();
    }

    @Override
    public BlockInfo blockInfo(DatanodeIdProto datanode, long blockId, BlockToken token, TimeSpec time) {
      throw new UnsupportedOperationException();
    }

    @Override
    public HlcTimestamp sync(DatanodeIdProto datanode, Collection<Long> blockIds, Collection<BlockToken> tokens,
        Collection<Long> minLengths) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void close() {
    }
  }
}
