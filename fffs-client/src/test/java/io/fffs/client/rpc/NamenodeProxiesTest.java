package io.fffs.client.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.ha.HaConfigKeys;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** Which NameNode an HA client asks after each kind of failure (no NameNode runs: proxies connect lazily). */
class NamenodeProxiesTest {
  private static Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.set(HaConfigKeys.NAMESERVICES_KEY, "mycluster");
    conf.set(HaConfigKeys.NAMENODES_PREFIX + "mycluster", "nn1,nn2,nn3");
    for (int i = 1; i <= 3; i++) {
      conf.set(HaConfigKeys.RPC_ADDRESS_PREFIX + "mycluster.nn" + i, "127.0.0.1:" + (40_000 + i));
    }
    return conf;
  }

  @Test
  void aNewLeaderWaitingForBlockReportsIsAskedAgainAndOtherRefusalsAreNot() throws IOException {
    try (NamenodeProxies proxies = NamenodeProxies.ha("mycluster", conf())) {
      long start = System.nanoTime();
      assertThat(proxies.retryAfter(new FffsException(ErrorCode.NOT_LEADER, "nn1 is not the leader; leader=nn2"),
          0, start)).isZero();
      assertThat(proxies.describe()).startsWith("nn2 ");
      assertThat(proxies.retryAfter(new FffsException(ErrorCode.LEADER_STARTING, "nn2 took the lead"), 1, start))
          .isPositive();
      assertThat(proxies.describe()).as("the same leader, asked again").startsWith("nn2 ");
      assertThat(proxies.retryAfter(new FffsException(ErrorCode.SAFE_MODE, "entered by an administrator"), 2,
          start)).isNegative();
    }
  }

  @Test
  void followerReadsGoToTheNameNodeNamedAndMoveOnWhenItIsUnreachable() throws IOException {
    Configuration conf = conf();
    try (NamenodeProxies proxies = NamenodeProxies.ha("mycluster", conf)) {
      assertThat(proxies.reader()).as("off by default").isNull();
    }
    conf.setBoolean(HaConfigKeys.CLIENT_FOLLOWER_READS_KEY, true);
    conf.set(HaConfigKeys.CLIENT_FOLLOWER_READS_NAMENODE_KEY, "nn3");
    try (NamenodeProxies proxies = NamenodeProxies.ha("mycluster", conf)) {
      Object nn3 = proxies.reader();
      assertThat(nn3).isNotNull();
      proxies.readerUnreachable();
      assertThat(proxies.reader()).isNotNull().isNotSameAs(nn3);
    }
  }
}
