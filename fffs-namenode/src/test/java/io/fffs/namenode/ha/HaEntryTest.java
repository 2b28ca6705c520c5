package io.fffs.namenode.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.FffsException;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.MkdirsOp;
import io.fffs.common.time.HlcTimestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

/** The Raft entry layouts: one op (version 1, as older logs hold) and a batch of ops (version 2). */
class HaEntryTest {
  private static HaEntry op(long txid) {
    EditOpProto op = EditOpProto.newBuilder().setMkdirs(MkdirsOp.newBuilder().setPath("/d" + txid)
        .addInodeIds(1000 + txid).setPermission(0755).setOwner("o").setGroup("g")).build();
    return HaEntry.of(txid, HlcTimestamp.valueOf(txid << 20 | 3), new byte[] {1, 2, (byte) txid}, (int) txid * 7,
        op);
  }

  private static void assertSame(HaEntry decoded, HaEntry expected) throws FffsException {
    assertThat(decoded.txid()).isEqualTo(expected.txid());
    assertThat(decoded.hlc()).isEqualTo(expected.hlc());
    assertThat(decoded.clientId()).isEqualTo(expected.clientId());
    assertThat(decoded.callId()).isEqualTo(expected.callId());
    assertThat(decoded.op()).isEqualTo(expected.op());
  }

  @Test
  void aBatchHoldsItsOpsInOrderAndASingleOpKeepsTheFirstLayout() throws FffsException {
    List<HaEntry> ops = List.of(op(41), op(42), op(43));
    List<byte[]> encoded = new ArrayList<>();
    for (HaEntry op : ops) {
      encoded.add(op.encodeOne());
    }
    List<HaEntry> decoded = HaEntry.decodeAll(HaEntry.encodeBatch(encoded));
    assertThat(decoded).hasSize(3);
    for (int i = 0; i < 3; i++) {
      assertSame(decoded.get(i), ops.get(i));
    }

    ByteString single = HaEntry.encodeBatch(List.of(encoded.get(0)));
    assertThat(single.byteAt(0)).isEqualTo((byte) 1);
    assertThat(HaEntry.decodeAll(single)).hasSize(1);
    assertSame(HaEntry.decodeAll(single).get(0), ops.get(0));
  }

  @Test
  void aCutBatchIsCorruptNotShort() {
    byte[] batch = HaEntry.encodeBatch(List.of(op(1).encodeOne(), op(2).encodeOne())).toByteArray();
    ByteString cut = ByteString.copyFrom(Arrays.copyOf(batch, batch.length - 5));
    assertThatThrownBy(() -> HaEntry.decodeAll(cut)).isInstanceOf(FffsException.class).hasMessageContaining("cut");
  }
}
