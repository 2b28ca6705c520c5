package io.fffs.common.net;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.ServerSocket;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FreePortsTest {
  @Test
  void portsPickedTogetherAreDistinctAndFreeOnceReturned() throws Exception {
    for (int round = 0; round < 20; round++) {
      int[] ports = FreePorts.pick(12);
      assertEquals(12, Arrays.stream(ports).distinct().count(), "ports picked together: " + Arrays.toString(ports));
      for (int port : ports) {
        try (ServerSocket socket = new ServerSocket(port)) {
          assertEquals(port, socket.getLocalPort());  // the probe was closed: the port can be bound
        }
      }
    }
  }
}
