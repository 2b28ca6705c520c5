package io.fffs.common.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.DataTransferProtos.BlockTokenProto;
import io.fffs.common.time.ManualPhysicalClock;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Token signing, checking and key rolls on manual clocks. */
class BlockTokenVerifierTest {
  private static final long MINUTE_MS = 60_000;
  private final ManualPhysicalClock clock = new ManualPhysicalClock(1_800_000_000_000_000L);
  private final BlockTokenIssuer issuer = new BlockTokenIssuer(true, 10 * MINUTE_MS, 60 * MINUTE_MS, clock);
  private final BlockTokenVerifier verifier = new BlockTokenVerifier(true, clock);

  private void check(BlockToken token, long blockId, BlockAccessMode mode) throws FffsException {
    verifier.check(List.of(token.toProto()), blockId, mode, "READ");
  }

  @Test
  void refusesEverythingUntilTheNameNodeSentKeys() {
    BlockToken token = issuer.issue(1, BlockAccessMode.READ, "bob");
    assertThatThrownBy(() -> check(token, 1, BlockAccessMode.READ))
        .hasMessageContaining("has no block keys from the NameNode yet");
  }

  @Test
  void aTokenSurvivesTheWireAndExpires() throws Exception {
    verifier.update(issuer.exportKeys());
    BlockToken token = BlockToken.fromProto(BlockTokenProto.parseFrom(
        issuer.issue(42, BlockAccessMode.WRITE, "alice").toProto().toByteArray()));
    check(token, 42, BlockAccessMode.WRITE);
    verifier.check(List.of(token.toProto()), 42, null, "BLOCK_INFO");  // either mode
    assertThatThrownBy(() -> check(token, 42, BlockAccessMode.READ)).hasMessageContaining("grants WRITE, not READ");
    clock.advance(10 * MINUTE_MS * 1000 + 1000);
    assertThatThrownBy(() -> check(token, 42, BlockAccessMode.WRITE))
        .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED))
        .hasMessageContaining("READ of block 42 refused: the WRITE token of alice expired at 2027-01-15T08:10:00Z");
  }

  @Test
  void everySignedFieldMatters() throws Exception {
    verifier.update(issuer.exportKeys());
    BlockToken token = issuer.issue(7, BlockAccessMode.READ, "bob");
    for (BlockToken forged : List.of(token.tamperedWith(8, BlockAccessMode.READ, "bob", token.expiryMillis()),
        token.tamperedWith(7, BlockAccessMode.WRITE, "bob", token.expiryMillis()),
        token.tamperedWith(7, BlockAccessMode.READ, "bobby", token.expiryMillis()),
        token.tamperedWith(7, BlockAccessMode.READ, "bob", token.expiryMillis() + 1))) {
      assertThatThrownBy(() -> check(forged, forged.blockId(), forged.mode())).hasMessageContaining("bad signature");
    }
  }

  @Test
  void aWriterOfASupersededEpochIsFencedOff() throws Exception {
    verifier.update(issuer.exportKeys());
    BlockToken old = issuer.issue(9, BlockAccessMode.WRITE, "alice", 1);
    verifier.checkWriter(List.of(old.toProto()), 9, 1, "WRITE");
    // The epoch is signed: claiming a newer one breaks the MAC.
    assertThatThrownBy(() -> verifier.checkWriter(List.of(old.withForgedEpoch(5).toProto()), 9, 5, "WRITE"))
        .hasMessageContaining("bad signature");
    // A request that says another epoch than its token's is refused.
    assertThatThrownBy(() -> verifier.checkWriter(List.of(old.toProto()), 9, 2, "WRITE"))
        .hasMessageContaining("says writer epoch 2 but its token of alice was issued for epoch 1");

    // A newer writer's token raises the fence; so does the NameNode's fence for another block.
    BlockToken newer = issuer.issue(9, BlockAccessMode.WRITE, "bob", 2);
    verifier.checkWriter(List.of(newer.toProto()), 9, 2, "WRITE");
    verifier.fences().install(List.of(io.fffs.common.proto.DatanodeProtocolProtos.WriterFenceProto.newBuilder()
        .setSeq(1).setEpoch(4).setExpiryMillis(old.expiryMillis()).addBlockIds(10).build()));
    for (long blockId : new long[] {9, 10}) {
      BlockToken stale = issuer.issue(blockId, BlockAccessMode.WRITE, "alice", 1);
      assertThatThrownBy(() -> verifier.checkWriter(List.of(stale.toProto()), blockId, 1, "WRITE"))
          .isInstanceOfSatisfying(FffsException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.STALE_WRITER))
          .hasMessageContaining("WRITE of block " + blockId + " refused: it was sent by a writer of epoch 1");
    }
    assertThatThrownBy(() -> verifier.fences().check(10, 3, "WRITE of block 10"))
        .hasMessageContaining("STALE_WRITER");
    verifier.fences().check(10, 4, "WRITE of block 10");

    // Once every token of a lower epoch has expired, the fences go (the token check refuses those writers).
    clock.advance((11 * MINUTE_MS + 60_000) * 1000);
    verifier.fences().install(List.of());
    assertThat(verifier.fences().size()).isZero();
  }

  @Test
  void keysRollOnScheduleAndThePreviousKeyStillVerifies() throws Exception {
    verifier.update(issuer.exportKeys());
    BlockToken first = issuer.issue(1, BlockAccessMode.READ, "bob");
    clock.advance(60 * MINUTE_MS * 1000);  // the roll is due: the next key (already known here) signs now
    BlockToken second = issuer.issue(1, BlockAccessMode.READ, "bob");
    assertThat(second.keyId()).isNotEqualTo(first.keyId());
    check(second, 1, BlockAccessMode.READ);  // before this DataNode heard of the roll
    verifier.update(issuer.exportKeys());
    assertThat(verifier.keyIds()).contains(first.keyId(), second.keyId()).hasSize(3);
    clock.advance(61 * MINUTE_MS * 1000);  // the first key's tokens are all expired: it is dropped at this roll
    issuer.issue(1, BlockAccessMode.READ, "bob");
    verifier.update(issuer.exportKeys());
    assertThat(verifier.keyIds()).doesNotContain(first.keyId()).contains(second.keyId());
  }

  @Test
  void offMeansNoChecks() throws Exception {
    BlockTokenIssuer off = new BlockTokenIssuer(false, MINUTE_MS, MINUTE_MS, clock);
    assertThat(off.issue(1, BlockAccessMode.READ, "bob")).isNull();
    verifier.update(off.exportKeys());
    assertThat(verifier.enforcing()).isFalse();
    verifier.check(List.of(), 1, BlockAccessMode.WRITE, "WRITE");
  }
}
