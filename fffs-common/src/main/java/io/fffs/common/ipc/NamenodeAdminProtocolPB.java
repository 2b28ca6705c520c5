package io.fffs.common.ipc;

import io.fffs.common.proto.NamenodeAdminProtocolProtos.NamenodeAdminProtocol;
import org.apache.hadoop.ipc.ProtocolInfo;

/** The administration protocol ({@code bin/fffs admin}) as Hadoop IPC ({@code ProtobufRpcEngine2}) serves it. */
@ProtocolInfo(protocolName = "io.fffs.NamenodeAdminProtocol", protocolVersion = 1)
public interface NamenodeAdminProtocolPB extends NamenodeAdminProtocol.BlockingInterface {
}
