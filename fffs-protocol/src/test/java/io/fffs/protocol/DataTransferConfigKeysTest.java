package io.fffs.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * The write window (packets in flight, from {@code fffs.client.write.window} and {@code ...window.bytes}) and the
 * bytes sent per flush ({@code fffs.client.write.flush-bytes}).
 */
class DataTransferConfigKeysTest {
  private static int window(String packetSize, String windowBytes, int windowPackets) {
    Configuration conf = new Configuration(false);
    conf.set(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, packetSize);
    if (windowBytes != null) {
      conf.set(DataTransferConfigKeys.WRITE_WINDOW_BYTES_KEY, windowBytes);
    }
    if (windowPackets > 0) {
      conf.setInt(DataTransferConfigKeys.WRITE_WINDOW_KEY, windowPackets);
    }
    return DataTransferConfigKeys.writeWindow(conf);
  }

  @Test
  void smallPacketsFillTheBytesWindow() {
    assertThat(window("64k", null, 0)).isEqualTo(128);
    assertThat(window("4k", null, 0)).isEqualTo(2048);
    assertThat(window("128k", "4m", 0)).isEqualTo(32);
    assertThat(window("4k", "1m", 0)).isEqualTo(256);
  }

  @Test
  void largePacketsKeepThePacketWindow() {
    assertThat(window("1m", null, 0)).isEqualTo(16);
    assertThat(window("4m", null, 0)).isEqualTo(16);
    assertThat(window("1m", null, 40)).isEqualTo(40);
  }

  @Test
  void zeroBytesLeavesThePacketWindowAndTinyPacketsAreCapped() {
    assertThat(window("1k", "0", 0)).isEqualTo(16);
    assertThat(window("1k", "0", 3)).isEqualTo(3);
    assertThat(window("512", null, 0)).isEqualTo(DataTransferConfigKeys.WRITE_WINDOW_MAX_PACKETS);
  }

  @Test
  void badValuesAreRefusedWithTheKey() {
    assertThatThrownBy(() -> window("64k", "-1", 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(DataTransferConfigKeys.WRITE_WINDOW_BYTES_KEY);
    Configuration conf = new Configuration(false);
    conf.setInt(DataTransferConfigKeys.WRITE_WINDOW_KEY, 0);
    assertThatThrownBy(() -> DataTransferConfigKeys.writeWindow(conf)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(DataTransferConfigKeys.WRITE_WINDOW_KEY);
  }

  @Test
  void flushBytesAreAtLeastOnePacket() {
    Configuration conf = new Configuration(false);
    conf.set(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, "64k");
    assertThat(DataTransferConfigKeys.writeFlushBytes(conf)).isEqualTo(256 << 10);
    conf.set(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, "1m");
    assertThat(DataTransferConfigKeys.writeFlushBytes(conf)).isEqualTo(1 << 20);
    conf.set(DataTransferConfigKeys.WRITE_FLUSH_BYTES_KEY, "0");
    conf.set(DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, "4k");
    assertThat(DataTransferConfigKeys.writeFlushBytes(conf)).isEqualTo(4 << 10);
    conf.set(DataTransferConfigKeys.WRITE_FLUSH_BYTES_KEY, "-5");
    assertThatThrownBy(() -> DataTransferConfigKeys.writeFlushBytes(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(DataTransferConfigKeys.WRITE_FLUSH_BYTES_KEY);
  }
}
