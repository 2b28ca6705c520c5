package io.fffs.protocol.frame;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.DataTransferProtos.ReadResponseProto;
import io.fffs.common.proto.DataTransferProtos.WriteRequestProto;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32C;
import org.apache.hadoop.thirdparty.protobuf.ByteString;
import org.apache.hadoop.thirdparty.protobuf.CodedOutputStream;
import org.apache.hadoop.thirdparty.protobuf.WireFormat;
import org.junit.jupiter.api.Test;

class ChunkChecksumsTest {
  private static final int[] CRCS = {0x01020304, 0xfffffffe, 0, 0x7f00ff80};

  /** Field 3 holding {@code crcs} as a packed repeated fixed32, the encoding before the field became bytes. */
  private static byte[] packedFixed32(int[] crcs) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    out.writeTag(3, WireFormat.WIRETYPE_LENGTH_DELIMITED);
    out.writeUInt32NoTag(4 * crcs.length);
    for (int crc : crcs) {
      out.writeFixed32NoTag(crc);
    }
    out.flush();
    return bytes.toByteArray();
  }

  @Test
  void chunkChecksumsArePer512BytesAndIndependentOfHowBytesArrive() {
    byte[] data = new byte[1300];
    new Random(1).nextBytes(data);
    int[] whole = ChunkChecksums.of(ByteBuffer.wrap(data));
    assertThat(whole).hasSize(3);
    CRC32C crc = new CRC32C();
    crc.update(data, 1024, 276);
    assertThat(whole[2]).isEqualTo((int) crc.getValue());
    ChunkChecksums pieces = new ChunkChecksums(0);
    for (int at = 0; at < data.length; at += 77) {
      pieces.update(ByteBuffer.wrap(data, at, Math.min(77, data.length - at)));
    }
    assertThat(pieces.finish()).isEqualTo(whole);
    ByteString sent = ChunkChecksums.toWire(whole);
    assertThat(ChunkChecksums.firstMismatch(ByteBuffer.wrap(data), sent)).isEqualTo(-1);
    data[600] ^= 1;
    assertThat(ChunkChecksums.firstMismatch(ByteBuffer.wrap(data), sent)).isEqualTo(1);
    data[600] ^= 1;
    // 2 chunks against 3 checksums: a count mismatch, reported as the count sent
    assertThat(ChunkChecksums.firstMismatch(ByteBuffer.wrap(data, 0, 1024), sent)).isEqualTo(3);
  }

  @Test
  void theWireFormIsWhatAPackedRepeatedFixed32PutsOnTheWire() throws IOException {
    byte[] packed = packedFixed32(CRCS);
    ByteString wire = ChunkChecksums.toWire(CRCS);
    assertThat(ReadResponseProto.newBuilder().setChunkCrcs(wire).buildPartial().toByteArray()).isEqualTo(packed);
    assertThat(WriteRequestProto.newBuilder().setChunkCrcs(wire).buildPartial().toByteArray()).isEqualTo(packed);
    // a peer that still sends the packed field is read the same way
    ReadResponseProto parsed = ReadResponseProto.parser().parsePartialFrom(packed);
    assertThat(ChunkChecksums.fromWire(parsed.getChunkCrcs())).containsExactly(CRCS);
    assertThat(ChunkChecksums.firstMismatch(CRCS, parsed.getChunkCrcs())).isEqualTo(-1);
  }

  @Test
  void aFieldOfTheWrongSizeNeverMatches() {
    ByteString wire = ChunkChecksums.toWire(CRCS);
    ByteString partial = wire.concat(ByteString.copyFrom(new byte[] {1, 2}));
    assertThat(ChunkChecksums.count(partial)).isEqualTo(5);
    assertThat(ChunkChecksums.firstMismatch(CRCS, partial)).isEqualTo(5);
    assertThat(ChunkChecksums.firstMismatch(CRCS, wire.substring(0, 8))).isEqualTo(2);
    assertThat(ChunkChecksums.firstMismatch(new int[0], ByteString.EMPTY)).isEqualTo(-1);
    int[] changed = CRCS.clone();
    changed[2] ^= 1 << 31;
    assertThat(ChunkChecksums.firstMismatch(changed, wire)).isEqualTo(2);
  }

  @Test
  void checksumsKnownForWholeChunksMixWithComputedOnes() {
    byte[] bytes = new byte[5 * ChunkChecksums.CHUNK_BYTES + 100];
    new Random(4).nextBytes(bytes);
    int[] all = ChunkChecksums.of(ByteBuffer.wrap(bytes));
    ChunkChecksums sums = new ChunkChecksums(bytes.length);
    sums.update(ByteBuffer.wrap(bytes, 0, 2 * ChunkChecksums.CHUNK_BYTES));
    assertThat(sums.atChunkBoundary()).isTrue();
    sums.add(all[2]);
    sums.add(all[3]);
    sums.update(ByteBuffer.wrap(bytes, 4 * ChunkChecksums.CHUNK_BYTES, 10));
    assertThat(sums.atChunkBoundary()).isFalse();
    int rest = 4 * ChunkChecksums.CHUNK_BYTES + 10;
    sums.update(ByteBuffer.wrap(bytes, rest, bytes.length - rest));
    assertThat(sums.finish()).isEqualTo(all);
  }
}
