package io.fffs.datanode;

import io.fffs.common.security.BlockTokenVerifier;
import io.fffs.common.transport.TransportProvider;
import io.fffs.datanode.server.WriteRules;
import io.fffs.datanode.store.BlockStore;
import java.io.Closeable;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;

/**
 * The DataNode side of a non-TCP transport ({@code META-INF/services/io.fffs.datanode.ServerTransportProvider}),
 * chosen by {@link DataNode#start}. Its server runs beside the TCP data server, which keeps serving clients without
 * the transport.
 */
public interface ServerTransportProvider extends TransportProvider {
  /** A running transport server; closing it stops it (after the writes it accepted are applied or refused). */
  interface Server extends Closeable {
    /** The port clients connect to for this transport (advertised as {@code DatanodeIdProto.transportPort}). */
    int port();
  }

  /**
   * Starts serving {@code store} with the same semantics as the TCP data server: every write goes through
   * {@code rules} (its checks, the HLC merge, its answer) and every request needs a valid block token
   * ({@code io.fffs.datanode.server.BlockAccess.check} with {@code blockKeys}).
   *
   * @param host the host the TCP data server is bound to; bind the same one
   */
  Server start(Configuration conf, String host, BlockStore store, WriteRules rules, BlockTokenVerifier blockKeys)
      throws IOException;
}
