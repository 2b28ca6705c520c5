package io.fffs.client.data;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;

/** Whether a DataNode's advertised host is this host: its interfaces' addresses and its name, looked up once. */
public final class LocalHosts {
  private static volatile Set<String> hosts;

  private LocalHosts() {}

  public static boolean isLocal(String host) {
    return all().contains(host);
  }

  private static Set<String> all() {
    Set<String> known = hosts;
    if (known == null) {
      known = new HashSet<>();
      try {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
          for (InetAddress address : Collections.list(nic.getInetAddresses())) {
            known.add(address.getHostAddress());
          }
        }
        known.add(InetAddress.getLocalHost().getHostName());
      } catch (SocketException | UnknownHostException e) {
        // No interface list: every DataNode counts as remote.
      }
      known.add("localhost");
      hosts = known = Set.copyOf(known);
    }
    return known;
  }
}
