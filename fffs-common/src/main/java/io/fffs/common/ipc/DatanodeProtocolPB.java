package io.fffs.common.ipc;

import io.fffs.common.proto.DatanodeProtocolProtos.DatanodeProtocol;
import org.apache.hadoop.ipc.ProtocolInfo;

/** The DataNode-to-NameNode protocol as Hadoop IPC ({@code ProtobufRpcEngine2}) serves and calls it. */
@ProtocolInfo(protocolName = "io.fffs.DatanodeProtocol", protocolVersion = 1)
public interface DatanodeProtocolPB extends DatanodeProtocol.BlockingInterface {
}
