package io.fffs.datanode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.security.BlockTokenConfigKeys;
import io.fffs.common.time.PhysicalClock;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.protocol.DataTransferConfigKeys;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without a UCX server on the class path (this module has none), a DataNode told {@code fffs.transport=ucx} refuses
 * to start with a sentence naming the setting and the way out; with {@code auto} it starts and advertises TCP.
 */
class TransportChoiceTest {
  @TempDir
  Path dir;

  private Configuration conf(String transport) {
    Configuration conf = new Configuration(false);
    conf.set(DataNodeConfigKeys.DATA_DIR_KEY, dir.resolve("data").toString());
    conf.set(DataNodeConfigKeys.MEMORY_DIR_KEY, dir.resolve("memory").toString());
    conf.setLong(DataNodeConfigKeys.MEMORY_CAPACITY_KEY, 1L << 20);
    conf.setBoolean(DataNodeConfigKeys.MEMORY_PRETOUCH_KEY, false);
    conf.set(DataNodeServiceConfigKeys.DATA_ADDRESS_KEY, "127.0.0.1:0");
    conf.setBoolean(DataNodeServiceConfigKeys.NAMENODE_ENABLED_KEY, false);
    conf.setBoolean(BlockTokenConfigKeys.ENABLE_KEY, false);
    conf.set(DataTransferConfigKeys.TRANSPORT_KEY, transport);
    return conf;
  }

  @Test
  void ucxIsRefusedAtStartUntilItExistsAndAutoFallsBackToTcp() throws Exception {
    assertThatThrownBy(() -> DataNode.start(conf("ucx"), PhysicalClock.system()).close())
        .isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED);
          assertThat(e.detail()).contains("fffs.transport=ucx").contains("auto or tcp");
        });
    try (DataNode datanode = DataNode.start(conf("auto"), PhysicalClock.system())) {
      assertThat(datanode.datanodeId().getTransport()).isEqualTo("tcp");
      assertThat(datanode.datanodeId().getTransportPort()).isZero();
    }
  }
}
