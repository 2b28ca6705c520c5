package io.fffs.client;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.PhysicalClock;
import java.util.ArrayList;
import java.util.List;

/**
 * A writer's WRITE tokens, one per block in block order (null where the NameNode issues none), and when to ask for
 * a fresh one: halfway through the life it had when it arrived (the NameNode's clock sets the expiry, ours the
 * arrival, so the margin also absorbs a skew between the two). Not thread-safe (the stream's lock).
 */
final class WriteTokens {
  private final PhysicalClock clock;
  private final List<BlockToken> tokens = new ArrayList<>();
  private final List<Long> renewAtMillis = new ArrayList<>();

  WriteTokens(PhysicalClock clock) {
    this.clock = clock;
  }

  /** Keeps the token of the file's next block. */
  void add(LocatedBlockProto block) {
    tokens.add(null);
    renewAtMillis.add(0L);
    set(tokens.size() - 1, block);
  }

  /** Keeps a fresh token of block {@code index}. */
  void set(int index, LocatedBlockProto block) {
    BlockToken token = FileLayout.tokenOf(block);
    tokens.set(index, token);
    long now = nowMillis();
    renewAtMillis.set(index, token == null ? Long.MAX_VALUE : now + (token.expiryMillis() - now) / 2);
  }

  /** The token of block {@code index}, or null. */
  BlockToken get(int index) {
    return tokens.get(index);
  }

  /** Whether block {@code index}'s token is halfway through its life. */
  boolean due(int index) {
    return nowMillis() >= renewAtMillis.get(index);
  }

  private long nowMillis() {
    return clock.currentTimeMicros() / 1000;
  }
}
