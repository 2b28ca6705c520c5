package io.fffs.common.transport;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.File;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;

/**
 * Chooses the data transport of one side (client or DataNode) from {@code fffs.transport}:
 * <ul>
 *   <li>{@code tcp}: TCP, without looking for anything else;</li>
 *   <li>{@code auto} (default): a provider of the role whose probe says it is {@linkplain TransportProbe#preferred
 *       preferred}, else TCP, with the reason; without an RDMA device (and {@code fffs.rdma.require-device}, the
 *       default) TCP at once, without looking for providers on the class path;</li>
 *   <li>{@code ucx}: that provider if it is {@linkplain TransportProbe#available available}, else an
 *       {@code UNSUPPORTED} error that says why — never a silent fallback.</li>
 * </ul>
 * Both sides choose independently; a client uses a non-TCP transport with a DataNode only if the DataNode advertises
 * it (its {@code DatanodeIdProto.transport}) and the connection set-up agrees, so if either side lacks it, both use
 * TCP.
 */
public final class TransportSelection {
  public static final String TRANSPORT_KEY = "fffs.transport";
  public static final String TRANSPORT_DEFAULT = "auto";
  public static final String TCP = "tcp";
  public static final String UCX = "ucx";
  /** Whether {@code auto} takes UCX only with an RDMA device; false lets it use UCX's tcp and shm transports. */
  public static final String REQUIRE_DEVICE_KEY = "fffs.rdma.require-device";
  public static final boolean REQUIRE_DEVICE_DEFAULT = true;
  /** Where to look for RDMA devices (tests point it elsewhere). */
  public static final String DEVICE_DIR_KEY = "fffs.rdma.device-dir";
  public static final String DEVICE_DIR_DEFAULT = "/sys/class/infiniband";

  /**
   * The outcome.
   *
   * @param transport {@code tcp} or the provider's name
   * @param provider the provider to use, or null for TCP
   * @param reason one line: what was found, or why TCP
   */
  public record Choice<P extends TransportProvider>(String transport, P provider, String reason) {
    public boolean tcp() {
      return provider == null;
    }
  }

  private TransportSelection() {}

  /** {@code fffs.transport}, checked: {@code auto}, {@code tcp} or {@code ucx}. */
  public static String configured(Configuration conf) throws FffsException {
    String value = conf.getTrimmed(TRANSPORT_KEY, TRANSPORT_DEFAULT).toLowerCase(Locale.ROOT);
    if (!value.equals("auto") && !value.equals(TCP) && !value.equals(UCX)) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, TRANSPORT_KEY + " must be auto, tcp or ucx, got '"
          + value + "'");
    }
    return value;
  }

  /**
   * Chooses among the providers of {@code role} found by {@link ServiceLoader} in the role's class loader, looked
   * for only when the choice depends on them: every jar of a client's class path is searched, and the provider
   * found is loaded.
   */
  public static <P extends TransportProvider> Choice<P> select(Configuration conf, Class<P> role)
      throws FffsException {
    return selectFrom(conf, () -> ServiceLoader.load(role, role.getClassLoader()));
  }

  /** Chooses among {@code providers}. */
  public static <P extends TransportProvider> Choice<P> select(Configuration conf, Iterable<P> providers)
      throws FffsException {
    return selectFrom(conf, () -> providers);
  }

  /** Chooses among the providers {@code lookup} gives, called only if neither the setting nor the host decides. */
  public static <P extends TransportProvider> Choice<P> selectFrom(Configuration conf, Supplier<Iterable<P>> lookup)
      throws FffsException {
    String wanted = configured(conf);
    if (wanted.equals(TCP)) {
      return new Choice<>(TCP, null, TRANSPORT_KEY + "=tcp");
    }
    String noDevice = wanted.equals(UCX) ? null : withoutRdmaDevice(conf);
    if (noDevice != null) {
      return new Choice<>(TCP, null, noDevice);
    }
    P provider = null;
    for (P candidate : lookup.get()) {
      if (candidate.name().equals(UCX)) {
        provider = candidate;
        break;
      }
    }
    if (provider == null) {
      return refuseOrTcp(wanted, "no UCX transport on the class path (the fffs-rdma module)");
    }
    String skip = wanted.equals(UCX) ? null : provider.notPreferred(conf);
    if (skip != null) {
      return new Choice<>(TCP, null, skip);
    }
    TransportProbe probe = provider.probe(conf);
    boolean take = wanted.equals(UCX) ? probe.available() : probe.preferred();
    if (take) {
      return new Choice<>(provider.name(), provider, probe.detail());
    }
    return refuseOrTcp(wanted, probe.detail());
  }

  /**
   * Why {@code auto} would not choose UCX, known without any provider: no RDMA device in {@code
   * fffs.rdma.device-dir} while {@code fffs.rdma.require-device} is true; else null.
   */
  public static String withoutRdmaDevice(Configuration conf) {
    String dir = conf.getTrimmed(DEVICE_DIR_KEY, DEVICE_DIR_DEFAULT);
    String[] devices = new File(dir).list();
    if (!conf.getBoolean(REQUIRE_DEVICE_KEY, REQUIRE_DEVICE_DEFAULT) || devices != null && devices.length > 0) {
      return null;
    }
    return "no RDMA device in " + dir + "; auto uses UCX only with one (" + REQUIRE_DEVICE_KEY + "=false or "
        + TRANSPORT_KEY + "=ucx to use UCX's tcp and shared-memory transports)";
  }

  private static <P extends TransportProvider> Choice<P> refuseOrTcp(String wanted, String why)
      throws FffsException {
    if (wanted.equals(UCX)) {
      throw new FffsException(ErrorCode.UNSUPPORTED, TRANSPORT_KEY + "=ucx but UCX is not available: " + why
          + "; use " + TRANSPORT_KEY + "=auto or tcp");
    }
    return new Choice<>(TCP, null, why);
  }
}
