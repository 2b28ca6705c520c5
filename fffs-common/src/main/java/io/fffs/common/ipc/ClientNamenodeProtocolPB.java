package io.fffs.common.ipc;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.ClientNamenodeProtocol;
import org.apache.hadoop.ipc.ProtocolInfo;

/** The client-to-NameNode protocol as Hadoop IPC ({@code ProtobufRpcEngine2}) serves and calls it. */
@ProtocolInfo(protocolName = "io.fffs.ClientNamenodeProtocol", protocolVersion = 1)
public interface ClientNamenodeProtocolPB extends ClientNamenodeProtocol.BlockingInterface {
}
