package io.fffs.namenode.fs;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.NamenodeEditsProtos.DelegationKeyOp;
import io.fffs.common.proto.NamenodeEditsProtos.DelegationTokenOp;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.namenode.namespace.DelegationState;
import org.apache.hadoop.thirdparty.protobuf.ByteString;
import org.junit.jupiter.api.Test;

/** The delegation-token secrets: logged, replayed at a restart and carried by checkpoints, removals included. */
class DelegationStateTest extends NamesystemTestBase {
  @Test
  void keysAndTokensSurviveRestartsAndCheckpoints() throws Exception {
    nn.fs.logSecret(key(7, false));
    nn.fs.logSecret(key(8, false));
    nn.fs.logSecret(token("a", 100, false));
    nn.fs.logSecret(token("b", 200, false));
    nn.fs.logSecret(token("a", 300, false));  // renewed
    nn.fs.logSecret(token("b", 0, true));     // cancelled
    nn.fs.logSecret(key(7, true));            // expired
    assertKept();

    nn.restart();
    assertKept();
    nn.fs.checkpoint();
    nn.restart();
    assertKept();
  }

  private void assertKept() throws Exception {
    DelegationState state = nn.fs.delegationState();
    assertThat(state.keys()).extracting(DelegationKeyOp::getKeyId).containsExactly(8);
    assertThat(state.keys().iterator().next().getKey().toStringUtf8()).isEqualTo("secret-8");
    assertThat(state.tokens()).extracting(t -> t.getIdentifier().toStringUtf8()).containsExactly("a");
    assertThat(state.tokens().iterator().next().getRenewDate()).isEqualTo(300);
  }

  private static EditOpProto key(int id, boolean removed) {
    return EditOpProto.newBuilder().setDelegationKey(DelegationKeyOp.newBuilder().setKeyId(id)
        .setExpiryDate(1_000L * id).setKey(ByteString.copyFromUtf8("secret-" + id)).setRemoved(removed)).build();
  }

  private static EditOpProto token(String identifier, long renewDate, boolean removed) {
    return EditOpProto.newBuilder().setDelegationToken(DelegationTokenOp.newBuilder()
        .setIdentifier(ByteString.copyFromUtf8(identifier)).setRenewDate(renewDate).setRemoved(removed)).build();
  }
}
