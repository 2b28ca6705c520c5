package io.fffs.common.transport;

import org.apache.hadoop.conf.Configuration;

/**
 * A data transport besides the built-in TCP one (Netty), found at run time through {@link java.util.ServiceLoader}.
 * The client and the DataNode each load it through their own role interface, which extends this one: the client's
 * {@code io.fffs.client.data.ClientTransportProvider}, the DataNode's {@code io.fffs.datanode.ServerTransportProvider}.
 * Nothing imports an implementation; {@link TransportSelection} picks one by {@link #name()}.
 */
public interface TransportProvider {
  /** The value of {@code fffs.transport} that asks for this transport, e.g. {@code ucx}. */
  String name();

  /**
   * Checks, on this machine and in this JVM, whether the transport can run: its native library loads, its
   * resources come up, and whether it is worth choosing automatically (see {@link TransportProbe}). Never throws;
   * may take some milliseconds (it may open and close a native context).
   */
  TransportProbe probe(Configuration conf);

  /**
   * Why {@code fffs.transport=auto} would not choose this transport, if that is known without loading or starting
   * anything (for UCX: no RDMA device); null when only {@link #probe} can tell. Lets {@code auto} skip a probe that
   * costs a fresh client or DataNode a native library load for nothing.
   */
  default String notPreferred(Configuration conf) {
    return null;
  }
}
