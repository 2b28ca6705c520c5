package io.fffs.common.ipc;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.ClientNamenodeProtocol;
import org.apache.hadoop.ipc.ProtocolInfo;
import io.fffs.common.security.FffsDelegationTokenSelector;
import org.apache.hadoop.security.KerberosInfo;
import org.apache.hadoop.security.token.TokenInfo;

/** The client-to-NameNode protocol as Hadoop IPC ({@code ProtobufRpcEngine2}) serves and calls it. */
// With Kerberos, clients authenticate the NameNode by this principal (KerberosConfigKeys).
@KerberosInfo(serverPrincipal = "fffs.namenode.kerberos.principal")
// A caller may also authenticate with an FFFS delegation token for the NameNode's address.
@TokenInfo(FffsDelegationTokenSelector.class)
@ProtocolInfo(protocolName = "io.fffs.ClientNamenodeProtocol", protocolVersion = 1)
public interface ClientNamenodeProtocolPB extends ClientNamenodeProtocol.BlockingInterface {
}
