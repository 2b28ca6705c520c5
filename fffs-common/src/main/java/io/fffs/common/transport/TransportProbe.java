package io.fffs.common.transport;

/**
 * What a {@link TransportProvider#probe} found.
 *
 * @param available the transport works here; {@code fffs.transport=<name>} may use it
 * @param preferred it is also better than TCP here (e.g. an RDMA device is present, or configuration says so), so
 *     {@code fffs.transport=auto} chooses it; implies {@code available}
 * @param detail one line for the log and for error messages: what was found, or why it is not available
 */
public record TransportProbe(boolean available, boolean preferred, String detail) {
  public TransportProbe {
    if (preferred && !available) {
      throw new IllegalArgumentException("a transport cannot be preferred but unavailable");
    }
  }

  public static TransportProbe unavailable(String why) {
    return new TransportProbe(false, false, why);
  }

  public static TransportProbe available(boolean preferred, String detail) {
    return new TransportProbe(true, preferred, detail);
  }
}
