package io.fffs.common.net;

import java.io.IOException;
import java.net.ServerSocket;

/**
 * Ports free now, for tests and mini clusters that must name their ports before the servers bind them. The ports of
 * one call are picked together: each probe socket stays bound until all are picked, so no two of them are the same
 * port (probed and closed one at a time, the kernel may hand out one port twice). Another process may still take a
 * port before its server binds it.
 */
public final class FreePorts {
  private FreePorts() {
  }

  /** {@code count} distinct ports free now. */
  public static int[] pick(int count) throws IOException {
    ServerSocket[] held = new ServerSocket[count];
    int[] ports = new int[count];
    try {
      for (int i = 0; i < count; i++) {
        held[i] = new ServerSocket(0);
        ports[i] = held[i].getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket socket : held) {
        if (socket != null) {
          socket.close();
        }
      }
    }
  }

  /** One port free now. */
  public static int pick() throws IOException {
    return pick(1)[0];
  }
}
