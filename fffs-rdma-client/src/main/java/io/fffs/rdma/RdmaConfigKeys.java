package io.fffs.rdma;

import io.fffs.common.transport.TransportSelection;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/**
 * Configuration of the UCX transport, read by clients and DataNodes: each key beside its default and its typed
 * getter. Which transport is used at all is {@code fffs.transport} ({@code auto}, {@code tcp}, {@code ucx}); UCX's
 * own settings ({@code UCX_TLS}, {@code UCX_NET_DEVICES}, ...) come from the environment (docs/rdma.md).
 */
public final class RdmaConfigKeys {
  /**
   * With {@code fffs.transport=auto}, use UCX only when an RDMA device is present ({@code /sys/class/infiniband}:
   * InfiniBand and RoCE NICs). Off: also over UCX's tcp and shared-memory transports (how the tests run).
   * {@code fffs.transport=ucx} uses UCX whenever it loads.
   */
  public static final String REQUIRE_DEVICE_KEY = TransportSelection.REQUIRE_DEVICE_KEY;
  public static final boolean REQUIRE_DEVICE_DEFAULT = TransportSelection.REQUIRE_DEVICE_DEFAULT;

  /** Where to look for RDMA devices (tests point it elsewhere). */
  public static final String DEVICE_DIR_KEY = TransportSelection.DEVICE_DIR_KEY;
  public static final String DEVICE_DIR_DEFAULT = TransportSelection.DEVICE_DIR_DEFAULT;

  /**
   * Bytes of one registered buffer: a client's write packet slot or read chunk, a DataNode's staging buffer.
   * Larger reads are split into requests of this size; write packets are at most this size.
   */
  public static final String BUFFER_SIZE_KEY = "fffs.rdma.buffer-size";
  public static final long BUFFER_SIZE_DEFAULT = 1 << 20;

  /** Registered buffers per client (shared by its writers and readers; bounds the bytes in flight). */
  public static final String CLIENT_BUFFERS_KEY = "fffs.rdma.client.buffers";
  public static final int CLIENT_BUFFERS_DEFAULT = 16;

  /** Registered staging buffers per DataNode that writes are fetched into (bounds GETs in flight). */
  public static final String SERVER_BUFFERS_KEY = "fffs.rdma.server.buffers";
  public static final int SERVER_BUFFERS_DEFAULT = 16;

  /** One-sided operations (one per run of contiguous pages) a DataNode issues before it waits for them. */
  public static final String SG_ENTRIES_KEY = "fffs.rdma.sg-entries";
  public static final int SG_ENTRIES_DEFAULT = 16;

  /**
   * Whether a DataNode GETs a write's bytes straight into the arena pages reserved for it (true) or into a
   * registered staging buffer that the store then copies from (false: fetches of queued writes overlap, at the
   * cost of a copy).
   */
  public static final String WRITE_INTO_ARENA_KEY = "fffs.rdma.datanode.write-into-arena";
  public static final boolean WRITE_INTO_ARENA_DEFAULT = true;

  /**
   * How many consecutive writes of one stream a DataNode fetches into the arena at once (each GET into pages
   * reserved to follow the one before, {@code PageReservation.reserveNext}); they are checked, committed and
   * acknowledged in order. 1 fetches one write at a time.
   */
  public static final String WRITE_DEPTH_KEY = "fffs.rdma.datanode.write-depth";
  public static final int WRITE_DEPTH_DEFAULT = 8;

  /** Port of the DataNode's UCX side channel (control messages); 0 picks a free one. */
  public static final String SERVER_PORT_KEY = "fffs.rdma.datanode.port";
  public static final int SERVER_PORT_DEFAULT = 0;

  /** Threads serving UCX reads on a DataNode (a read may wait for the clock). */
  public static final String SERVER_READ_THREADS_KEY = "fffs.rdma.datanode.read-threads";
  public static final int SERVER_READ_THREADS_DEFAULT = 4;

  /**
   * How long a UCX worker thread (client and DataNode) keeps polling after its last progress, while operations it
   * issued are outstanding, before it blocks for network events ({@code ucp_worker_wait}). A time duration
   * ({@code 0}, {@code 20us}, {@code 1ms}; a bare number is microseconds). Polling answers a completion that is
   * about to arrive a wake-up sooner but burns a core meanwhile; 0 blocks at once (docs/rdma.md, "Threads").
   */
  public static final String WORKER_SPIN_KEY = "fffs.rdma.worker.spin";
  public static final long WORKER_SPIN_DEFAULT_US = 0;

  private RdmaConfigKeys() {}

  public static boolean requireDevice(Configuration conf) {
    return conf.getBoolean(REQUIRE_DEVICE_KEY, REQUIRE_DEVICE_DEFAULT);
  }

  public static String deviceDir(Configuration conf) {
    return conf.getTrimmed(DEVICE_DIR_KEY, DEVICE_DIR_DEFAULT);
  }

  public static int bufferSize(Configuration conf) {
    long size = conf.getLongBytes(BUFFER_SIZE_KEY, BUFFER_SIZE_DEFAULT);
    if (size < 4096 || size > (1 << 30)) {
      throw new IllegalArgumentException(BUFFER_SIZE_KEY + " must be from 4 KiB to 1 GiB, got " + size);
    }
    return (int) size;
  }

  public static int clientBuffers(Configuration conf) {
    return atLeastOne(CLIENT_BUFFERS_KEY, conf.getInt(CLIENT_BUFFERS_KEY, CLIENT_BUFFERS_DEFAULT));
  }

  public static int serverBuffers(Configuration conf) {
    return atLeastOne(SERVER_BUFFERS_KEY, conf.getInt(SERVER_BUFFERS_KEY, SERVER_BUFFERS_DEFAULT));
  }

  public static int sgEntries(Configuration conf) {
    return atLeastOne(SG_ENTRIES_KEY, conf.getInt(SG_ENTRIES_KEY, SG_ENTRIES_DEFAULT));
  }

  public static boolean writeIntoArena(Configuration conf) {
    return conf.getBoolean(WRITE_INTO_ARENA_KEY, WRITE_INTO_ARENA_DEFAULT);
  }

  public static int writeDepth(Configuration conf) {
    return atLeastOne(WRITE_DEPTH_KEY, conf.getInt(WRITE_DEPTH_KEY, WRITE_DEPTH_DEFAULT));
  }

  public static int serverPort(Configuration conf) {
    return conf.getInt(SERVER_PORT_KEY, SERVER_PORT_DEFAULT);
  }

  public static int serverReadThreads(Configuration conf) {
    return atLeastOne(SERVER_READ_THREADS_KEY, conf.getInt(SERVER_READ_THREADS_KEY, SERVER_READ_THREADS_DEFAULT));
  }

  /** {@link #WORKER_SPIN_KEY} in nanoseconds. */
  public static long workerSpinNanos(Configuration conf) {
    long micros = conf.getTimeDuration(WORKER_SPIN_KEY, WORKER_SPIN_DEFAULT_US, TimeUnit.MICROSECONDS);
    if (micros < 0 || micros > 1_000_000) {
      throw new IllegalArgumentException(WORKER_SPIN_KEY + " must be from 0 to 1s, got " + micros + "us");
    }
    return TimeUnit.MICROSECONDS.toNanos(micros);
  }

  private static int atLeastOne(String key, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(key + " must be at least 1, got " + value);
    }
    return value;
  }
}
