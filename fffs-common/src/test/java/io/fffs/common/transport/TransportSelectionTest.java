package io.fffs.common.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransportSelectionTest {
  /** A UCX provider that knows without a probe that auto would not take it; its probe says it is preferred. */
  private static final class Provider implements TransportProvider {
    int probes;
    final String notPreferred;

    Provider(String notPreferred) {
      this.notPreferred = notPreferred;
    }

    @Override
    public String name() {
      return TransportSelection.UCX;
    }

    @Override
    public TransportProbe probe(Configuration conf) {
      probes++;
      return TransportProbe.available(true, "probed");
    }

    @Override
    public String notPreferred(Configuration conf) {
      return notPreferred;
    }
  }

  /** Without an RDMA device, or set to tcp, the class path is not searched for providers (a fresh client's start). */
  @Test
  void tcpAndAutoWithoutADeviceLookForNoProvider(@TempDir Path dir) throws Exception {
    Configuration conf = new Configuration(false);
    conf.set(TransportSelection.DEVICE_DIR_KEY, dir.resolve("none").toString());
    AtomicInteger lookups = new AtomicInteger();
    Provider provider = new Provider(null);
    TransportSelection.Choice<Provider> auto = TransportSelection.selectFrom(conf, () -> {
      lookups.incrementAndGet();
      return List.of(provider);
    });
    assertThat(auto.tcp()).isTrue();
    assertThat(auto.reason()).startsWith("no RDMA device in ");
    conf.set(TransportSelection.TRANSPORT_KEY, TransportSelection.TCP);
    assertThat(TransportSelection.selectFrom(conf, () -> {
      lookups.incrementAndGet();
      return List.of(provider);
    }).tcp()).isTrue();
    assertThat(lookups).hasValue(0);

    Files.createDirectories(dir.resolve("devices").resolve("mlx5_0"));
    conf.set(TransportSelection.DEVICE_DIR_KEY, dir.resolve("devices").toString());
    conf.set(TransportSelection.TRANSPORT_KEY, "auto");
    assertThat(TransportSelection.selectFrom(conf, () -> {
      lookups.incrementAndGet();
      return List.of(provider);
    }).tcp()).isFalse();
    assertThat(lookups).hasValue(1);
  }

  @Test
  void autoSkipsTheProbeOfATransportItWouldNotChoose() throws Exception {
    Provider provider = new Provider("no RDMA device");
    Configuration conf = new Configuration(false);
    conf.setBoolean(TransportSelection.REQUIRE_DEVICE_KEY, false);  // the provider's own reason, not the host's
    TransportSelection.Choice<Provider> choice = TransportSelection.select(conf, List.of(provider));
    assertThat(choice.tcp()).isTrue();
    assertThat(choice.reason()).isEqualTo("no RDMA device");
    assertThat(provider.probes).isZero();
  }

  @Test
  void askedForByNameOrPossiblyPreferredItIsProbed() throws Exception {
    Provider maybe = new Provider(null);
    Configuration noDeviceNeeded = new Configuration(false);
    noDeviceNeeded.setBoolean(TransportSelection.REQUIRE_DEVICE_KEY, false);
    assertThat(TransportSelection.select(noDeviceNeeded, List.of(maybe)).tcp()).isFalse();
    assertThat(maybe.probes).isEqualTo(1);
    Provider named = new Provider("no RDMA device");
    Configuration ucx = new Configuration(false);
    ucx.set(TransportSelection.TRANSPORT_KEY, TransportSelection.UCX);
    assertThat(TransportSelection.select(ucx, List.of(named)).tcp()).isFalse();
    assertThat(named.probes).isEqualTo(1);
  }
}
