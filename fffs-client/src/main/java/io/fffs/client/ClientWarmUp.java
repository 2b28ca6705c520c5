package io.fffs.client;

import io.fffs.client.data.LocalHosts;
import io.fffs.common.proto.ClientNamenodeProtocolProtos;
import io.fffs.common.proto.DataTransferProtos;
import java.io.IOException;
import org.apache.hadoop.ipc.protobuf.ProtobufRpcEngine2Protos;
import org.apache.hadoop.ipc.protobuf.RpcHeaderProtos;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prepares a new client's read path on a thread of its own while the caller goes on: the data-transfer client (its
 * transport choice and short-circuit set-up), this host's addresses, and the protocol classes of the first NameNode
 * call and the first DataNode request. A fresh JVM otherwise does all of it, one class at a time, inside its first
 * {@code open} and read; here it runs beside them (on another core where there is one). HDFS's client does the like
 * inside {@code FileSystem} creation. Nothing is sent to a server; a failure is left for the first read to report.
 */
final class ClientWarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(ClientWarmUp.class);

  private ClientWarmUp() {}

  static void start(FffsClient client) {
    Thread thread = new Thread(() -> run(client), "fffs-client-warm-up");
    thread.setDaemon(true);
    thread.start();
  }

  private static void run(FffsClient client) {
    try {
      RpcHeaderProtos.RpcRequestHeaderProto.getDefaultInstance();
      RpcHeaderProtos.RpcResponseHeaderProto.getDefaultInstance();
      ProtobufRpcEngine2Protos.RequestHeaderProto.getDefaultInstance();
      ClientNamenodeProtocolProtos.LocatedBlocksProto.getDefaultInstance();
      client.prepareData();
      LocalHosts.isLocal("localhost");
      DataTransferProtos.RequestHeaderProto.getDefaultInstance();
      DataTransferProtos.ResponseHeaderProto.getDefaultInstance();
    } catch (IOException | RuntimeException e) {
      LOG.debug("Could not prepare the read path ahead of the first read: {}", e.toString());
    }
  }
}
