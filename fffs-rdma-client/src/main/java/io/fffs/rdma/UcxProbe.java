package io.fffs.rdma;

import io.fffs.common.transport.TransportProbe;
import io.fffs.common.transport.TransportSelection;
import java.io.File;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

/**
 * Detects UCX: the native library loads (jucx's JNI glue and {@code libucp.so.0}; a missing library is an
 * {@link UnsatisfiedLinkError}, caught), a context with the RMA feature and a worker come up, and whether an RDMA
 * device is present. Available = it came up; preferred (chosen by {@code fffs.transport=auto}) = an RDMA device is
 * present, or {@code fffs.rdma.require-device=false}.
 *
 * <p>{@link #forceLoadFailure} is a named fault hook for tests: while set, the probe behaves as if the native
 * library were missing. It does nothing unless a test sets it.
 */
public final class UcxProbe {
  private static volatile String forcedLoadFailure;

  private UcxProbe() {}

  /** Test hook: make every probe fail as if {@code libucp.so.0} did not load ({@code null} clears it). */
  public static void forceLoadFailure(String why) {
    forcedLoadFailure = why;
  }

  public static TransportProbe probe(Configuration conf) {
    String forced = forcedLoadFailure;
    try {
      if (forced != null) {
        throw new UnsatisfiedLinkError(forced);
      }
      try (UcpContext context = new UcpContext(contextParams());
          UcpWorker worker = context.newWorker(new UcpWorkerParams())) {
        worker.getAddress();
      }
    } catch (LinkageError e) {
      return TransportProbe.unavailable("the UCX native library does not load (" + e + "); install UCX 1.18"
          + " (libucp.so.0) on the library path, see docs/rdma.md");
    } catch (RuntimeException e) {
      return TransportProbe.unavailable("UCX loads but does not start (" + e + ")");
    }
    String[] devices = devices(RdmaConfigKeys.deviceDir(conf));
    boolean preferred = devices.length > 0 || !RdmaConfigKeys.requireDevice(conf);
    String tls = System.getenv("UCX_TLS");
    String detail = "UCX up (UCX_TLS=" + (tls == null ? "all" : tls) + "), RDMA devices: "
        + (devices.length == 0 ? "none" : Arrays.toString(devices));
    if (!preferred) {
      detail += "; auto uses UCX only with an RDMA device (" + RdmaConfigKeys.REQUIRE_DEVICE_KEY + "=false or "
          + "fffs.transport=ucx to use UCX's tcp and shared-memory transports)";
    } else if (devices.length == 0) {
      detail += ", " + RdmaConfigKeys.REQUIRE_DEVICE_KEY + "=false";
    }
    return TransportProbe.available(preferred, detail);
  }

  /**
   * Why {@code fffs.transport=auto} would not choose UCX, known without loading it: no RDMA device while
   * {@code fffs.rdma.require-device} is true; else null. (Loading jucx and UCX and starting a context costs a fresh
   * JVM 0.2–0.5 s, and jucx unpacks its JNI library even where UCX is missing.)
   */
  public static String notPreferred(Configuration conf) {
    return TransportSelection.withoutRdmaDevice(conf);
  }

  public static UcpParams contextParams() {
    return new UcpParams().requestRmaFeature().requestWakeupFeature();
  }

  private static String[] devices(String dir) {
    String[] names = new File(dir).list();
    if (names == null) {
      return new String[0];
    }
    Arrays.sort(names);
    return names;
  }
}
