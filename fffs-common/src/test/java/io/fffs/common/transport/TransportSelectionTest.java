package io.fffs.common.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

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

  @Test
  void autoSkipsTheProbeOfATransportItWouldNotChoose() throws Exception {
    Provider provider = new Provider("no RDMA device");
    TransportSelection.Choice<Provider> choice = TransportSelection.select(new Configuration(false), List.of(provider));
    assertThat(choice.tcp()).isTrue();
    assertThat(choice.reason()).isEqualTo("no RDMA device");
    assertThat(provider.probes).isZero();
  }

  @Test
  void askedForByNameOrPossiblyPreferredItIsProbed() throws Exception {
    Provider maybe = new Provider(null);
    assertThat(TransportSelection.select(new Configuration(false), List.of(maybe)).tcp()).isFalse();
    assertThat(maybe.probes).isEqualTo(1);
    Provider named = new Provider("no RDMA device");
    Configuration ucx = new Configuration(false);
    ucx.set(TransportSelection.TRANSPORT_KEY, TransportSelection.UCX);
    assertThat(TransportSelection.select(ucx, List.of(named)).tcp()).isFalse();
    assertThat(named.probes).isEqualTo(1);
  }
}
