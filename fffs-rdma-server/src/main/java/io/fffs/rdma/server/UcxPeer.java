package io.fffs.rdma.server;

import io.fffs.datanode.server.StreamFailures;
import io.netty.channel.Channel;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRemoteKey;

/**
 * One client as a DataNode's UCX server sees it: its side channel, the UCX endpoint to its worker, the remote keys
 * it sent (unpacked once each), and its write streams that failed (whose later packets are refused, as on TCP).
 * Endpoint and keys are used only on the worker loop; the failed streams only on the write applier's thread.
 */
final class UcxPeer {
  final Channel channel;
  private final UcpEndpoint endpoint;
  private final Map<ByteBuffer, UcpRemoteKey> rkeys = new HashMap<>();
  private volatile String broken;
  /** Applier thread. */
  final StreamFailures streams = new StreamFailures();

  UcxPeer(Channel channel, UcpEndpoint endpoint) {
    this.channel = channel;
    this.endpoint = endpoint;
  }

  /** Worker loop. */
  UcpEndpoint endpoint() {
    return endpoint;
  }

  /** Worker loop: the unpacked form of {@code packed}. */
  UcpRemoteKey rkey(ByteBuffer packed) {
    UcpRemoteKey key = rkeys.get(packed);
    if (key == null) {
      ByteBuffer direct = ByteBuffer.allocateDirect(packed.remaining());
      direct.put(packed.duplicate()).flip();
      key = endpoint.unpackRemoteKey(direct);
      rkeys.put(packed.duplicate(), key);
    }
    return key;
  }

  /** Called by UCX's error handler: the endpoint is unusable (the client died or the transport failed). */
  void broken(String why) {
    broken = why;
    channel.close();
  }

  /** Why the endpoint failed, or null. */
  String brokenReason() {
    return broken;
  }

  /** Worker loop, once the channel closed: releases the keys and closes the endpoint. */
  void release() {
    for (UcpRemoteKey key : rkeys.values()) {
      key.close();
    }
    rkeys.clear();
    try {
      endpoint.closeNonBlockingForce();
    } catch (RuntimeException e) {
      // the endpoint may already be gone with its peer
    }
  }
}
