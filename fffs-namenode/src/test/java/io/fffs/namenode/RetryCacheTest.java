package io.fffs.namenode;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.ipc.ClientNamenodeProtocolPB;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.CreateRequestProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.CreateResponseProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.RenameRequestProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.RenameResponseProto;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.Client;
import org.apache.hadoop.ipc.ProtobufRpcEngine2;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A change retried with the same Hadoop IPC client and call id is made once and answered with its first answer, and
 * the client retries changes whose connection broke, so the first change after a NameNode restart goes through.
 */
class RetryCacheTest {
  @TempDir
  Path dir;

  private final HybridLogicalClock clientClock = new HybridLogicalClock(PhysicalClock.system(), 250_000);
  private NameNode nameNode;
  private ClientNamenodeProtocolPB proxy;

  private Configuration conf(boolean retryCache) {
    Configuration conf = new Configuration(false);
    conf.set(NameNodeConfigKeys.NAME_DIR_KEY, dir.resolve("name").toString());
    conf.set(NameNodeConfigKeys.RPC_ADDRESS_KEY, "127.0.0.1:0");
    conf.set(NameNodeConfigKeys.HTTP_ADDRESS_KEY, "127.0.0.1:0");
    conf.set(NameNodeConfigKeys.SAFEMODE_TIMEOUT_KEY, "60s");
    conf.setBoolean(NameNodeConfigKeys.RETRY_CACHE_ENABLED_KEY, retryCache);
    return conf;
  }

  private void start(Configuration conf) throws Exception {
    nameNode = NameNode.start(conf, PhysicalClock.system(), System::nanoTime);
    Configuration rpcConf = new Configuration(conf);
    RPC.setProtocolEngine(rpcConf, ClientNamenodeProtocolPB.class, ProtobufRpcEngine2.class);
    proxy = RPC.getProxy(ClientNamenodeProtocolPB.class, RPC.getProtocolVersion(ClientNamenodeProtocolPB.class),
        nameNode.rpcAddress(), rpcConf);
  }

  @AfterEach
  void stop() throws Exception {
    if (proxy != null) {
      RPC.stopProxy(proxy);
    }
    if (nameNode != null) {
      nameNode.close();
    }
  }

  /** A create that replaces {@code src}: made twice, it gives two files (two inode ids). */
  private CreateResponseProto create(String src, int callId, int retry) throws ServiceException {
    Client.setCallIdAndRetryCount(callId, retry, null);
    return proxy.create(null, CreateRequestProto.newBuilder().setHlc(clientClock.last().toProto()).setSrc(src)
        .setPermission(0644).setClientName("writer").setOverwrite(true).setCreateParent(true).setReplication(1)
        .setBlockSize(1 << 20).build());
  }

  private RenameResponseProto rename(String src, String dst, int callId, int retry) throws ServiceException {
    Client.setCallIdAndRetryCount(callId, retry, null);
    return proxy.rename(null, RenameRequestProto.newBuilder().setHlc(clientClock.last().toProto()).setSrc(src)
        .setDst(dst).build());
  }

  @Test
  void aRetriedChangeIsMadeOnceAndGetsItsFirstAnswer() throws Exception {
    start(conf(true));
    int callId = Client.nextCallId();
    CreateResponseProto first = create("/retried", callId, 0);
    CreateResponseProto retried = create("/retried", callId, 1);
    assertThat(retried).isEqualTo(first);
    long versionsAfterRetry = nameNode.namesystem().lastTxid();

    CreateResponseProto another = create("/retried", Client.nextCallId(), 0);
    assertThat(another.getStatus().getInodeId()).isNotEqualTo(first.getStatus().getInodeId());
    assertThat(nameNode.namesystem().lastTxid()).isGreaterThan(versionsAfterRetry);

    int renameId = Client.nextCallId();
    assertThat(rename("/retried", "/renamed", renameId, 0).getResult()).isTrue();
    // Made again, the rename would find no /retried and answer false.
    assertThat(rename("/retried", "/renamed", renameId, 1).getResult()).isTrue();
    assertThat(rename("/retried", "/renamed", Client.nextCallId(), 0).getResult()).isFalse();
  }

  @Test
  void withoutTheCacheARetriedChangeIsMadeTwice() throws Exception {
    start(conf(false));
    int callId = Client.nextCallId();
    CreateResponseProto first = create("/twice", callId, 0);
    CreateResponseProto retried = create("/twice", callId, 1);
    assertThat(retried.getStatus().getInodeId()).isNotEqualTo(first.getStatus().getInodeId());
  }

  @Test
  void aRetryOfAFailedChangeRunsAgain() throws Exception {
    start(conf(true));
    int callId = Client.nextCallId();
    assertThat(rename("/later", "/moved", callId, 0).getResult()).isFalse();
    create("/later", Client.nextCallId(), 0);
    // A false rename made no change, and it is the change's own answer that is cached, so it runs again.
    assertThat(rename("/later", "/moved", callId, 1).getResult()).isFalse();
  }

  @Test
  void aChangeLoggedBeforeARestartIsAnsweredNotMadeAgain() throws Exception {
    Configuration conf = conf(true);
    start(conf);
    int createId = Client.nextCallId();
    CreateResponseProto created = create("/kept", createId, 0);
    create("/moving", Client.nextCallId(), 0);
    int renameId = Client.nextCallId();
    assertThat(rename("/moving", "/moved", renameId, 0).getResult()).isTrue();
    conf.set(NameNodeConfigKeys.RPC_ADDRESS_KEY, "127.0.0.1:" + nameNode.rpcAddress().getPort());
    nameNode.close();
    nameNode = NameNode.start(conf, PhysicalClock.system(), System::nanoTime);
    long lastTxid = nameNode.namesystem().lastTxid();

    // The same proxy keeps its IPC client id; its first call may meet the connection the restart broke.
    RenameResponseProto renamed = retried(() -> rename("/moving", "/moved", renameId, 1));
    assertThat(renamed.getResult()).as("made again, the rename would find no /moving").isTrue();
    CreateResponseProto createdAgain = retried(() -> create("/kept", createId, 2));
    assertThat(createdAgain.getStatus().getInodeId()).isEqualTo(created.getStatus().getInodeId());
    assertThat(nameNode.namesystem().lastTxid()).isEqualTo(lastTxid);
    assertThat(rename("/moving", "/moved", Client.nextCallId(), 0).getResult()).isFalse();
  }

  private interface Call<T> {
    T run() throws ServiceException;
  }

  private static <T> T retried(Call<T> call) throws ServiceException {
    try {
      return call.run();
    } catch (ServiceException brokenConnection) {
      return call.run();
    }
  }

  @Test
  void theFirstChangesAfterANameNodeRestartGoThrough() throws Exception {
    Configuration conf = conf(true);
    start(conf);
    NamenodeClient client = NamenodeClient.connect(nameNode.rpcAddress(), conf, clientClock);
    try {
      client.create("/before", 0644, "writer", false, true, 1, 1 << 20, null);
      conf.set(NameNodeConfigKeys.RPC_ADDRESS_KEY, "127.0.0.1:" + nameNode.rpcAddress().getPort());
      nameNode.close();
      nameNode = NameNode.start(conf, PhysicalClock.system(), System::nanoTime);
      // The client's pooled connection is to the stopped NameNode: the change meets a broken connection first.
      assertThat(client.rename("/before", "/after")).isTrue();
      assertThat(client.create("/second", 0644, "writer", false, true, 1, 1 << 20, null).getPath())
          .isEqualTo("/second");
      assertThat(client.getFileInfo("/after", TimeSpec.latest())).isNotNull();
      assertThat(client.getFileInfo("/before", TimeSpec.latest())).isNull();
    } finally {
      client.close();
    }
  }
}
