package io.fffs.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class UnackedWritesTest {
  private static byte[] bytes(ByteBuffer buffer) {
    byte[] out = new byte[buffer.remaining()];
    buffer.duplicate().get(out);
    return out;
  }

  @Test
  void whatIsPastTheAcknowledgedBytesIsSentAgainFromWithinAWrite() {
    UnackedWrites writes = new UnackedWrites();
    byte[] data = new byte[100];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) i;
    }
    writes.add(1000, data, 0, 40, 0);
    writes.add(5, data, 40, 30, 0);  // back to the start of the block: offsets are the writes', not a sequence
    writes.add(2000, data, 70, 30, 40);  // the first write was acknowledged meanwhile: dropped
    List<UnackedWrites.Remainder> rest = writes.after(50);
    assertThat(rest).hasSize(2);
    assertThat(rest.get(0).offset()).isEqualTo(15);  // 10 bytes of the second write were applied
    assertThat(bytes(rest.get(0).bytes())).containsExactly(java.util.Arrays.copyOfRange(data, 50, 70));
    assertThat(rest.get(1).offset()).isEqualTo(2000);
    assertThat(bytes(rest.get(1).bytes())).containsExactly(java.util.Arrays.copyOfRange(data, 70, 100));
    assertThat(writes.after(100)).isEmpty();
  }

  @Test
  void theCopiesDoNotChangeWhenTheCallerReusesItsBuffer() {
    UnackedWrites writes = new UnackedWrites();
    byte[] packet = {1, 2, 3};
    writes.add(0, packet, 0, 3, 0);
    packet[0] = 9;
    assertThat(bytes(writes.after(0).get(0).bytes())).containsExactly(1, 2, 3);
  }

  @Test
  void anAcknowledgedWritesArrayHoldsTheNextCopyWithoutChangingWhatIsUnacknowledged() {
    UnackedWrites writes = new UnackedWrites();
    writes.add(0, new byte[] {1, 1}, 0, 2, 0);
    writes.add(2, new byte[] {2, 2}, 0, 2, 0);
    writes.add(4, new byte[] {3, 3}, 0, 2, 2);  // the first write's array is reused here
    writes.add(6, new byte[] {4, 4}, 0, 2, 2);
    List<UnackedWrites.Remainder> rest = writes.after(2);
    assertThat(rest).hasSize(3);
    assertThat(bytes(rest.get(0).bytes())).containsExactly(2, 2);
    assertThat(bytes(rest.get(1).bytes())).containsExactly(3, 3);
    assertThat(bytes(rest.get(2).bytes())).containsExactly(4, 4);
  }

  @Test
  void aHandedOverPacketIsKeptAsItIsAndTheSpareIsNeverAnUnacknowledgedOne() {
    UnackedWrites writes = new UnackedWrites();
    byte[] first = {1, 1};
    writes.handOver(0, first, 0);
    byte[] next = writes.spare(2);
    assertThat(next).isNotSameAs(first);
    next[0] = 2;
    next[1] = 2;
    writes.handOver(2, next, 0);
    assertThat(writes.after(0)).extracting(r -> bytes(r.bytes())).containsExactly(new byte[] {1, 1},
        new byte[] {2, 2});
    assertThat(writes.after(2)).hasSize(1);  // the first packet was acknowledged: its array is spare again
    assertThat(writes.spare(2)).isSameAs(first);
    assertThat(writes.spare(2)).isNotSameAs(next);
    assertThat(bytes(writes.after(2).get(0).bytes())).containsExactly(2, 2);
  }

  @Test
  void aCopyIsDirectMemoryThatStaysUnchangedUntilAcknowledgedThenHoldsALaterCopy() {
    UnackedWrites writes = new UnackedWrites();
    ByteBuffer first = writes.add(0, new byte[] {1, 1}, 0, 2, 0);
    ByteBuffer second = writes.add(2, new byte[] {2, 2}, 0, 2, 0);
    assertThat(first.isDirect()).isTrue();  // a TCP transport sends from it without a copy of its own
    ByteBuffer third = writes.add(4, new byte[] {3, 3}, 0, 2, 0);  // nothing acknowledged: new memory
    assertThat(bytes(first)).containsExactly(1, 1);
    assertThat(bytes(second)).containsExactly(2, 2);
    ByteBuffer fourth = writes.add(6, new byte[] {4, 4}, 0, 2, 2);  // the first is acknowledged: its memory
    assertThat(bytes(first)).containsExactly(4, 4);
    assertThat(bytes(second)).containsExactly(2, 2);
    assertThat(bytes(third)).containsExactly(3, 3);
    assertThat(bytes(fourth)).containsExactly(4, 4);
  }

  /**
   * The stream's loop against a writer that sends from the kept copies by reference and acknowledges them late, by
   * a varying lag: at each acknowledgement, the memory the writer sent from still holds exactly what was written.
   */
  @Test
  void noCopyAWriterSendsFromIsReusedBeforeItIsAcknowledged() {
    UnackedWrites writes = new UnackedWrites();
    java.util.Random random = new java.util.Random(29);
    java.util.ArrayDeque<ByteBuffer> sent = new java.util.ArrayDeque<>();
    java.util.ArrayDeque<byte[]> expected = new java.util.ArrayDeque<>();
    long acknowledged = 0;
    int checked = 0;
    for (int i = 0; i < 2000; i++) {
      byte[] data = new byte[1 + random.nextInt(64)];
      random.nextBytes(data);
      ByteBuffer kept = writes.add(i * 64L, data, 0, data.length, acknowledged);
      sent.add(kept);
      expected.add(data.clone());
      java.util.Arrays.fill(data, (byte) 0);  // the caller reuses its array at once
      for (int lag = random.nextInt(20); sent.size() > lag; checked++) {
        ByteBuffer answered = sent.poll();
        assertThat(bytes(answered)).containsExactly(expected.poll());
        acknowledged += answered.remaining();
      }
    }
    assertThat(checked).isGreaterThan(1900);
  }

  @Test
  void aDoneBlocksAcknowledgedCopiesTakeTheNextBlocksAndItsUnacknowledgedOnesStay() {
    UnackedWrites done = new UnackedWrites();
    ByteBuffer first = done.add(0, new byte[] {1, 1, 1}, 0, 3, 0);
    ByteBuffer second = done.add(3, new byte[] {2, 2, 2}, 0, 3, 0);
    done.release(3);  // the second write is not acknowledged: it stays, unchanged
    UnackedWrites next = new UnackedWrites();
    next.add(0, new byte[] {7, 7, 7}, 0, 3, 0);
    assertThat(bytes(first)).containsExactly(7, 7, 7);  // the released memory holds the next block's copy
    assertThat(bytes(second)).containsExactly(2, 2, 2);
    assertThat(done.after(3)).extracting(r -> bytes(r.bytes())).containsExactly(new byte[] {2, 2, 2});
  }
}
