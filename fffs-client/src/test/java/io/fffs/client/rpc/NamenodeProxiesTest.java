package io.fffs.client.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.ha.HaConfigKeys;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.RemoteException;
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

  /**
   * Two "NameNodes" that accept connections and never answer, as a leader cut off by a partition does: the client
   * gives up on the first after the call timeout and asks the second, instead of waiting on the first for Hadoop
   * IPC's minute.
   */
  @Test
  void aNameNodeThatNeverAnswersIsLeftAfterTheCallTimeout() throws Exception {
    try (ServerSocket nn1 = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        ServerSocket nn2 = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      List<Socket> held = new CopyOnWriteArrayList<>();
      CountDownLatch nn2Asked = new CountDownLatch(1);
      Thread mute1 = mute(nn1, held, new CountDownLatch(1));
      Thread mute2 = mute(nn2, held, nn2Asked);
      Configuration conf = twoNamenodes(nn1, nn2);
      HybridLogicalClock clock = new HybridLogicalClock(PhysicalClock.system(), conf);
      long start = System.nanoTime();
      try (NamenodeClient client = NamenodeClient.connectHa("mycluster", conf, clock)) {
        assertThatThrownBy(() -> client.getFileInfo("/", TimeSpec.latest()))
            .isInstanceOf(SocketTimeoutException.class);
      } finally {
        for (Socket socket : held) {
          socket.close();
        }
        mute1.interrupt();
        mute2.interrupt();
      }
      assertThat(nn2Asked.getCount()).as("the second NameNode was asked").isZero();
      assertThat(System.nanoTime() - start).as("well before Hadoop IPC's minute")
          .isLessThan(TimeUnit.SECONDS.toNanos(30));
    }
  }

  /**
   * NIO reports a reset met while sending a call as a plain IOException, which Hadoop IPC wraps as it is (the form a
   * killed leader gave a writer): still the connection's failure.
   */
  @Test
  void aResetConnectionIsTriedOnTheNextNameNodeAndARefusalIsNot() throws IOException {
    IOException reset = new IOException("DestHost:destPort localhost:35889 , LocalHost:localPort vm/127.0.0.1:0."
        + " Failed on local exception: java.io.IOException: Connection reset by peer",
        new IOException("Connection reset by peer"));
    assertThat(NamenodeProxies.brokenConnection(reset)).isTrue();
    assertThat(NamenodeProxies.brokenConnection(new IOException("wrapped", new EOFException()))).isTrue();
    RemoteException refused = new RemoteException(IOException.class.getName(), "Connection reset by peer");
    assertThat(NamenodeProxies.brokenConnection(refused)).as("the NameNode's own answer").isFalse();
    assertThat(NamenodeProxies.brokenConnection(new IOException("no such file"))).isFalse();
    try (NamenodeProxies proxies = NamenodeProxies.ha("mycluster", conf())) {
      assertThat(proxies.retryAfter(reset, 0, System.nanoTime())).isZero();
      assertThat(proxies.describe()).startsWith("nn2 ");
    }
  }

  /**
   * A "NameNode" that resets every connection while the client waits for its answer, as a killed leader's socket
   * does, and one that never answers: the client leaves the first for the second instead of failing the call.
   */
  @Test
  void aNameNodeThatResetsTheConnectionIsLeftForTheNext() throws Exception {
    try (ServerSocket nn1 = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        ServerSocket nn2 = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      List<Socket> held = new CopyOnWriteArrayList<>();
      CountDownLatch nn2Asked = new CountDownLatch(1);
      Thread resetting = new Thread(() -> {
        try {
          while (true) {
            try (Socket socket = nn1.accept()) {
              socket.setSoTimeout(200);
              try {
                while (socket.getInputStream().read(new byte[4096]) >= 0) {
                  // take the whole call, so the client is waiting for its answer when the reset comes
                }
              } catch (SocketTimeoutException taken) {
                socket.setSoLinger(true, 0);  // close with a reset
              }
            }
          }
        } catch (IOException closed) {
          // the test is over
        }
      }, "resetting-namenode");
      resetting.setDaemon(true);
      resetting.start();
      Thread mute2 = mute(nn2, held, nn2Asked);
      Configuration conf = twoNamenodes(nn1, nn2);
      HybridLogicalClock clock = new HybridLogicalClock(PhysicalClock.system(), conf);
      try (NamenodeClient client = NamenodeClient.connectHa("mycluster", conf, clock)) {
        assertThatThrownBy(() -> client.getFileInfo("/", TimeSpec.latest())).isInstanceOf(IOException.class);
      } finally {
        for (Socket socket : held) {
          socket.close();
        }
        mute2.interrupt();
      }
      assertThat(nn2Asked.getCount()).as("the second NameNode was asked").isZero();
    }
  }

  /** Cluster mycluster of two "NameNodes" listening at {@code nn1} and {@code nn2}, with short timeouts. */
  private static Configuration twoNamenodes(ServerSocket nn1, ServerSocket nn2) {
    Configuration conf = conf();
    conf.set(HaConfigKeys.NAMENODES_PREFIX + "mycluster", "nn1,nn2");
    conf.set(HaConfigKeys.RPC_ADDRESS_PREFIX + "mycluster.nn1", "127.0.0.1:" + nn1.getLocalPort());
    conf.set(HaConfigKeys.RPC_ADDRESS_PREFIX + "mycluster.nn2", "127.0.0.1:" + nn2.getLocalPort());
    conf.set(HaConfigKeys.CALL_TIMEOUT_KEY, "300ms");
    conf.set(HaConfigKeys.CLIENT_FAILOVER_TIMEOUT_KEY, "4s");  // room for a cold JVM's first call to nn1
    return conf;
  }

  /** Accepts connections on {@code server} and holds them open without a word. */
  private static Thread mute(ServerSocket server, List<Socket> held, CountDownLatch accepted) {
    Thread thread = new Thread(() -> {
      try {
        while (true) {
          held.add(server.accept());
          accepted.countDown();
        }
      } catch (IOException closed) {
        // the test is over
      }
    }, "mute-namenode");
    thread.setDaemon(true);
    thread.start();
    return thread;
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
