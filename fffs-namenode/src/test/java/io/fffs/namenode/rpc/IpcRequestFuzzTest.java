package io.fffs.namenode.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.ipc.ClientNamenodeProtocolPB;
import io.fffs.common.ipc.DatanodeProtocolPB;
import io.fffs.common.ipc.NamenodeAdminProtocolPB;
import io.fffs.common.ipc.RemoteErrors;
import io.fffs.common.time.PhysicalClock;
import io.fffs.namenode.NameNode;
import io.fffs.namenode.NameNodeConfigKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.ProtobufRpcEngine2;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.ipc.RemoteException;
import org.apache.hadoop.thirdparty.protobuf.InvalidProtocolBufferException;
import org.apache.hadoop.thirdparty.protobuf.Message;
import org.apache.hadoop.thirdparty.protobuf.Parser;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;

/**
 * Whatever request a caller sends over Hadoop IPC — any method of the client, DataNode and admin protocols, with
 * any message the fuzzer builds for it (missing required fields, impossible paths, times, ids, lengths) — a real
 * NameNode decodes it and answers, or refuses it with a typed error (never {@code INTERNAL}, the mark of an
 * unexpected exception in our code) or with Hadoop's own refusal of an undecodable request, and stays up. The
 * requests reach the NameNode through Hadoop's client, so its request framing and header decoding are Hadoop's
 * well-tried code, and the fuzzer's bytes go to the decoding and serving of the FFFS messages. Fuzzed by
 * {@code dev-support/fuzz.sh}.
 */
class IpcRequestFuzzTest {
  private static final NameNode NAME_NODE;
  private static final List<Object> PROXIES = new ArrayList<>();
  private static final List<Method> METHODS = new ArrayList<>();
  private static final List<Object> TARGETS = new ArrayList<>();

  static {
    try {
      Path dir = Files.createTempDirectory("fffs-ipc-fuzz");
      Configuration conf = new Configuration(false);
      conf.set(NameNodeConfigKeys.NAME_DIR_KEY, dir.resolve("name").toString());
      conf.set(NameNodeConfigKeys.RPC_ADDRESS_KEY, "127.0.0.1:0");
      conf.set(NameNodeConfigKeys.HTTP_ADDRESS_KEY, "127.0.0.1:0");
      conf.set(NameNodeConfigKeys.SAFEMODE_TIMEOUT_KEY, "1s");
      // A request that hangs is a finding too: no answer within 10 s fails the input.
      conf.setInt("ipc.client.rpc-timeout.ms", 10_000);
      NAME_NODE = NameNode.start(conf, PhysicalClock.system(), System::nanoTime);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(dir)));
      for (Class<?> protocol : List.of(ClientNamenodeProtocolPB.class, DatanodeProtocolPB.class,
          NamenodeAdminProtocolPB.class)) {
        Configuration rpcConf = new Configuration(conf);
        RPC.setProtocolEngine(rpcConf, protocol, ProtobufRpcEngine2.class);
        Object proxy = RPC.getProxy(protocol, RPC.getProtocolVersion(protocol), NAME_NODE.rpcAddress(), rpcConf);
        PROXIES.add(proxy);
        List<Method> methods = new ArrayList<>();
        for (Method method : protocol.getMethods()) {
          if (method.getParameterCount() == 2 && Message.class.isAssignableFrom(method.getParameterTypes()[1])) {
            methods.add(method);
          }
        }
        methods.sort(Comparator.comparing(Method::getName));  // the same input picks the same method every run
        for (Method method : methods) {
          METHODS.add(method);
          TARGETS.add(proxy);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** At the JVM's exit: the NameNode stops and its name directory goes. */
  private static void stop(Path dir) {
    try {
      NAME_NODE.close();
      try (var paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("could not clean up " + dir + ": " + e);
    }
  }

  @FuzzTest(maxDuration = "5m")
  void anyRequestIsAnsweredOrRefusedWithATypedErrorAndTheNameNodeStaysUp(FuzzedDataProvider data)
      throws Exception {
    int pick = data.consumeInt(0, METHODS.size() - 1);
    Method method = METHODS.get(pick);
    Message request;
    try {
      Parser<?> parser = (Parser<?>) method.getParameterTypes()[1].getMethod("parser").invoke(null);
      request = (Message) parser.parsePartialFrom(data.consumeRemainingAsBytes());
    } catch (InvalidProtocolBufferException e) {
      return;  // not a message of this type on the wire: nothing a client library would send
    }
    try {
      method.invoke(TARGETS.get(pick), null, request);
    } catch (InvocationTargetException e) {
      assertThat(e.getCause()).isInstanceOf(ServiceException.class);
      IOException failure = RemoteErrors.unwrap((ServiceException) e.getCause());
      if (failure instanceof FffsException) {
        assertThat(((FffsException) failure).code()).as("%s(%s): %s", method.getName(), request, failure)
            .isNotEqualTo(ErrorCode.INTERNAL);
      } else {
        // Hadoop's own refusal (a request missing required fields, an unauthorized call), answered by the server.
        RemoteException remote = failure instanceof RemoteException ? (RemoteException) failure
            : (RemoteException) failure.getCause();
        assertThat(remote).as("%s(%s) failed without an answer: %s", method.getName(), request, failure)
            .isNotNull();
        assertThat(remote.getClassName()).as("%s(%s): %s", method.getName(), request, failure)
            .startsWith("org.apache.hadoop.");
      }
    }
  }
}
