package io.fffs.namenode.fs;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.security.BlockAccessMode;
import io.fffs.common.security.BlockKeySet;
import io.fffs.common.security.BlockToken;
import io.fffs.common.security.BlockTokenConfigKeys;
import org.junit.jupiter.api.Test;

/**
 * The block-token keys are logged and carried by checkpoints: a restarted NameNode signs with the keys it had, rolls
 * at start if the interval passed while it was down, and starts anew only when its keys expired.
 */
class BlockKeysPersistenceTest extends NamesystemTestBase {
  private static final long HOUR_MICROS = 3_600_000_000L;

  private BlockKeySet keys() {
    return nn.fs.blockTokens.keys();
  }

  @Test
  void theKeysSurviveRestartsRollsAndCheckpoints() throws Exception {
    BlockKeySet first = keys();
    BlockToken token = nn.fs.blockTokens.issue(7, BlockAccessMode.WRITE, "alice");
    nn.restart();
    assertThat(keys()).isEqualTo(first);
    assertThat(nn.fs.blockTokens.issue(7, BlockAccessMode.WRITE, "alice").keyId()).isEqualTo(token.keyId());

    nn.fs.blockTokens.roll();
    BlockKeySet rolled = keys();
    assertThat(rolled.current()).isEqualTo(first.next());
    assertThat(rolled.retired()).contains(first.current());
    nn.restart();
    assertThat(keys()).isEqualTo(rolled);

    nn.fs.checkpoint();
    nn.restart();
    assertThat(keys()).isEqualTo(rolled);
  }

  @Test
  void aNameNodeDownPastTheIntervalRollsAtStartAndOneDownPastTheKeysLifeStartsAnew() throws Exception {
    BlockKeySet first = keys();
    long intervalMicros = BlockTokenConfigKeys.KEY_UPDATE_INTERVAL_DEFAULT_MS * 1000;
    nn.fs.close();
    nn.advance(intervalMicros + HOUR_MICROS / 60);  // past the roll, within the current key's token lifetime
    nn.start();
    BlockKeySet rolled = keys();
    assertThat(rolled.current()).isEqualTo(first.next());
    assertThat(rolled.retired()).contains(first.current());
    nn.restart();
    assertThat(keys()).isEqualTo(rolled);  // the roll at start was logged

    nn.fs.close();
    nn.advance(3 * intervalMicros);
    nn.start();
    BlockKeySet fresh = keys();
    assertThat(fresh.current()).isNotIn(rolled.current(), rolled.next());
    assertThat(fresh.retired()).isEmpty();
    nn.restart();
    assertThat(keys()).isEqualTo(fresh);
  }
}
