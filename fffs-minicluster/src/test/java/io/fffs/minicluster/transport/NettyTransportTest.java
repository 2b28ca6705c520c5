package io.fffs.minicluster.transport;

/** {@link TransportSuite} over Netty/TCP ({@code fffs.transport=tcp}). */
class NettyTransportTest extends TransportSuite {
  @Override
  String transport() {
    return "tcp";
  }

  @Override
  String expectedTransport() {
    return "tcp";
  }
}
