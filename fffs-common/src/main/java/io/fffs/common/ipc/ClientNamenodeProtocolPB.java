package io.fffs.common.ipc;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.ClientNamenodeProtocol;
import org.apache.hadoop.ipc.ProtocolInfo;
import org.apache.hadoop.security.KerberosInfo;

/** The client-to-NameNode protocol as Hadoop IPC ({@code ProtobufRpcEngine2}) serves and calls it. */
// With Kerberos, clients authenticate the NameNode by this principal (KerberosConfigKeys).
@KerberosInfo(serverPrincipal = "fffs.namenode.kerberos.principal")
@ProtocolInfo(protocolName = "io.fffs.ClientNamenodeProtocol", protocolVersion = 1)
public interface ClientNamenodeProtocolPB extends ClientNamenodeProtocol.BlockingInterface {
}
