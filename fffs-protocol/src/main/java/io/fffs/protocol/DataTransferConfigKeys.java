package io.fffs.protocol;

import io.fffs.common.error.FffsException;
import io.fffs.common.transport.TransportSelection;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/**
 * Configuration of the data-transfer protocol, read by clients and DataNodes alike: each key beside its default and
 * its typed getter. Sizes accept Hadoop's suffixes ({@code 128k}, {@code 16m}); durations Hadoop's units.
 */
public final class DataTransferConfigKeys {
  /** Which transport moves block data: {@code auto}, {@code tcp} (Netty) or {@code ucx} (RDMA, {@code fffs-rdma}). */
  public static final String TRANSPORT_KEY = "fffs.transport";
  public static final String TRANSPORT_DEFAULT = "auto";

  /** The largest frame (everything after its length field) a peer accepts; longer ones close the connection. */
  public static final String MAX_FRAME_SIZE_KEY = "fffs.datatransfer.max-frame-size";
  public static final long MAX_FRAME_SIZE_DEFAULT = 16L << 20;

  /** Room kept in a frame for its header: payloads are at most the max frame size minus this. */
  public static final int HEADER_ROOM_BYTES = 64 * 1024;

  /**
   * Packets a block writer keeps in flight before {@code write} blocks for an acknowledgement: at least this many,
   * and more when {@link #WRITE_WINDOW_BYTES_KEY} holds more packets of the configured size.
   */
  public static final String WRITE_WINDOW_KEY = "fffs.client.write.window";
  public static final int WRITE_WINDOW_DEFAULT = 16;

  /**
   * Bytes a block writer keeps in flight: the window is at least as many packets as fill this (at most
   * {@link #WRITE_WINDOW_MAX_PACKETS}); 0 leaves it at {@link #WRITE_WINDOW_KEY} packets. With 16 packets of 64 KiB
   * (1 MiB in flight) a writer waited for acknowledgements that the DataNode sends in batches, and writes ran at
   * 0.39–0.56 GB/s; with 8 MiB in flight at 0.68–0.73 (4 KiB packets: 0.17–0.20 against 0.28–0.29). Packets of 512 KiB
   * and more keep their 16.
   */
  public static final String WRITE_WINDOW_BYTES_KEY = "fffs.client.write.window.bytes";
  public static final long WRITE_WINDOW_BYTES_DEFAULT = 8L << 20;

  /** The most packets {@link #WRITE_WINDOW_BYTES_KEY} puts in flight (each one holds a future and a frame). */
  public static final int WRITE_WINDOW_MAX_PACKETS = 8192;

  /**
   * Bytes of block data per WRITE packet; each packet is one entry of the block log. Every packet costs both ends a
   * request, an answer and a log entry, and a fresh JVM's JIT compiles that per-packet code once it has run often
   * enough: a fresh client writing 1 GiB in 128 KiB calls used about a quarter less CPU, client and DataNode
   * together, with 1 MiB packets than with 128 KiB ones (4 MiB: no better, the client's collector busier).
   */
  public static final String WRITE_PACKET_SIZE_KEY = "fffs.client.write.packet-size";
  public static final long WRITE_PACKET_SIZE_DEFAULT = 1024 * 1024;

  /**
   * Bytes of queued packets a TCP block writer sends with one flush (at least one packet): packets wait in the
   * client until this many are queued, the window is full, or {@code hflush}, {@code hsync} or {@code close} asks
   * (latency mode sends each at once). At 64 KiB packets a flush per packet made half of the TCP segments
   * 600-byte tails (each packet is 64 KiB of data plus its header and chunk CRCs); with 256 KiB per flush the
   * client's event loop took about a fifth less CPU per byte and writes ran at 0.61–0.80 GB/s against 0.48–0.74
   * (medians of six interleaved runs each: 0.67 against 0.56). Not used by UCX, whose requests carry no data.
   */
  public static final String WRITE_FLUSH_BYTES_KEY = "fffs.client.write.flush-bytes";
  public static final long WRITE_FLUSH_BYTES_DEFAULT = 256 * 1024;

  /**
   * How a replicated block is written: {@code chain} — the client sends each packet once, to the primary, and every
   * member forwards it to the next (as HDFS does) — or {@code fan-out} — the client sends it to every replica itself.
   * UCX and TLS clusters write by fan-out whatever is set (DataNodes link to each other over plain TCP). A chain
   * member that stalls or cannot be reached is dropped within {@link #CHAIN_TIMEOUT_KEY}.
   */
  public static final String WRITE_PIPELINE_KEY = "fffs.client.write.pipeline";
  public static final String WRITE_PIPELINE_DEFAULT = "chain";

  /**
   * Chain pipeline: how long a member waits for the next one to answer a forwarded write before it drops the rest of
   * the chain, which the writer then rebuilds without the member that stalled (one with n members after it waits
   * n/(n+1) of this, so the member just before a stalled one reports it). The client sends it with each packet,
   * so it holds whatever the DataNodes' settings; at most {@link #RESPONSE_TIMEOUT_KEY}, default half of it, so a
   * stalled follower is dropped before the client gives up on the primary.
   */
  public static final String CHAIN_TIMEOUT_KEY = "fffs.client.write.chain.timeout";

  /** Latency mode: {@code TCP_NODELAY} and every packet flushed at once (else packets are batched per flush). */
  public static final String LATENCY_MODE_KEY = "fffs.client.latency-mode";
  public static final boolean LATENCY_MODE_DEFAULT = false;

  /**
   * Bytes a client asks for per READ request. A read of more (a stream's buffer, a positioned read) is split into
   * requests of this size that are sent back to back on one connection, so the DataNode reads and checksums the
   * next piece while the client receives and verifies the previous one (at most
   * {@code fffs.client.read.requests-in-flight} at once). A sequential read keeps that many requests ahead of its
   * caller. 1 MiB: each request costs a hand-off to a DataNode handler and back to its event loop, a page pin, a
   * header and a wake-up of the reader; against 256 KiB requests (x 8) it took a sixth to a fifth off the CPU per
   * byte of a 256 MiB read (measured in one JVM, alternating, 1 MiB to 4 MiB application reads).
   */
  public static final String READ_REQUEST_SIZE_KEY = "fffs.client.read.request-size";
  public static final long READ_REQUEST_SIZE_DEFAULT = 1024 * 1024;

  /**
   * The largest READ a sequential read asks for: its first request is {@code fffs.client.read.request-size} and
   * each next one twice the last, up to this; at most two of these are outstanding. A fresh JVM interprets, and
   * then compiles, the code that runs once per request on both sides: a 64 MiB read in 1 MiB requests gave the two
   * JVMs' compilers more CPU than the reading itself.
   */
  public static final String READ_STREAM_REQUEST_SIZE_KEY = "fffs.client.read.stream-request-size";
  public static final long READ_STREAM_REQUEST_SIZE_DEFAULT = 4L << 20;

  /**
   * Short-circuit reads: a client on the host of a replica asks its DataNode where the bytes are (LOCAL_READ, with
   * the block token) and copies them from the DataNode's arena and segment files itself, like HDFS's
   * {@code dfs.client.read.shortcircuit}. Off: every read goes through the data port.
   */
  public static final String SHORT_CIRCUIT_KEY = "fffs.client.read.shortcircuit";
  public static final boolean SHORT_CIRCUIT_DEFAULT = true;

  /** Bytes one LOCAL_READ asks the locations of (a short-circuit read copies them before it asks for more). */
  public static final String SHORT_CIRCUIT_REQUEST_SIZE_KEY = "fffs.client.read.shortcircuit.request-size";
  public static final long SHORT_CIRCUIT_REQUEST_SIZE_DEFAULT = 8L << 20;

  /**
   * How a short-circuit read reads segment pages the page cache does not hold: {@code false} through the page cache
   * (which keeps them for the next reader), {@code true} around it with O_DIRECT into the client's own buffers
   * (read ahead of a sequential reader on the client's two ahead threads), leaving the page cache as it was. Pages
   * the page cache holds are read from it either way. For data read once (a scan of cold data), {@code true} spares
   * the kernel a page-cache page per page read.
   */
  public static final String SHORT_CIRCUIT_DIRECT_IO_KEY = "fffs.client.read.shortcircuit.direct-io";
  public static final boolean SHORT_CIRCUIT_DIRECT_IO_DEFAULT = false;

  /**
   * Data-port reads over TCP without TLS go over plain sockets the reading thread serves itself (requests pipelined,
   * each answer read straight into a buffer of its own, no event loop): a fresh client never starts Netty for them
   * and has far less code for the JIT to compile, which is most of what a fresh client's read costs. Off: reads go
   * through the Netty transport, as writes do.
   */
  public static final String READ_PLAIN_SOCKETS_KEY = "fffs.client.read.plain-sockets";
  public static final boolean READ_PLAIN_SOCKETS_DEFAULT = true;

  /** READ requests one block read keeps outstanding on its connection. */
  public static final String READ_REQUESTS_IN_FLIGHT_KEY = "fffs.client.read.requests-in-flight";
  public static final int READ_REQUESTS_IN_FLIGHT_DEFAULT = 4;

  /** How long a client waits to connect to a DataNode. */
  public static final String CONNECT_TIMEOUT_KEY = "fffs.client.connect.timeout";
  public static final long CONNECT_TIMEOUT_DEFAULT_MS = 10_000;

  /** How long a client waits for the response to one request (SYNC may wait for the disk). */
  public static final String RESPONSE_TIMEOUT_KEY = "fffs.client.response.timeout";
  public static final long RESPONSE_TIMEOUT_DEFAULT_MS = 120_000;

  /** Idle connections a client keeps per DataNode for reuse. */
  public static final String MAX_IDLE_CONNECTIONS_KEY = "fffs.client.connections.max-idle";
  public static final int MAX_IDLE_CONNECTIONS_DEFAULT = 16;

  private DataTransferConfigKeys() {}

  /**
   * {@code fffs.transport}, checked: {@code auto}, {@code tcp} or {@code ucx}. Which one is used is decided by
   * {@link io.fffs.common.transport.TransportSelection}; the TCP path serves all three.
   */
  public static String transport(Configuration conf) throws FffsException {
    return TransportSelection.configured(conf);
  }

  public static int maxFrameSize(Configuration conf) {
    long size = conf.getLongBytes(MAX_FRAME_SIZE_KEY, MAX_FRAME_SIZE_DEFAULT);
    if (size < 2L * HEADER_ROOM_BYTES || size > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(MAX_FRAME_SIZE_KEY + " must be from " + 2 * HEADER_ROOM_BYTES
          + " bytes to 2 GiB, got " + conf.get(MAX_FRAME_SIZE_KEY));
    }
    return (int) size;
  }

  /**
   * The largest payload of one frame: the frame less the header room, less the header's CRC32C list (4 bytes per
   * 512-byte chunk of the payload, so 1/128 of it), rounded down to whole chunks.
   */
  public static int maxPayload(Configuration conf) {
    long usable = (long) maxFrameSize(conf) - HEADER_ROOM_BYTES;
    long payload = usable * 128 / 129;
    return (int) (payload - payload % 512);
  }

  /**
   * Packets in flight per block writer: {@link #WRITE_WINDOW_KEY}, or as many packets of
   * {@link #writePacketSize} as fill {@link #WRITE_WINDOW_BYTES_KEY} (at most {@link #WRITE_WINDOW_MAX_PACKETS}),
   * whichever is more.
   */
  public static int writeWindow(Configuration conf) {
    int window = conf.getInt(WRITE_WINDOW_KEY, WRITE_WINDOW_DEFAULT);
    if (window < 1) {
      throw new IllegalArgumentException(WRITE_WINDOW_KEY + " must be at least 1, got " + window);
    }
    long bytes = conf.getLongBytes(WRITE_WINDOW_BYTES_KEY, WRITE_WINDOW_BYTES_DEFAULT);
    if (bytes < 0) {
      throw new IllegalArgumentException(WRITE_WINDOW_BYTES_KEY + " must be 0 or more, got "
          + conf.get(WRITE_WINDOW_BYTES_KEY));
    }
    long packets = Math.min(WRITE_WINDOW_MAX_PACKETS, bytes / writePacketSize(conf));
    return (int) Math.max(window, packets);
  }

  /** At most {@link #maxPayload}. */
  public static int writePacketSize(Configuration conf) {
    long size = conf.getLongBytes(WRITE_PACKET_SIZE_KEY, WRITE_PACKET_SIZE_DEFAULT);
    if (size < 1 || size > maxPayload(conf)) {
      throw new IllegalArgumentException(WRITE_PACKET_SIZE_KEY + " must be from 1 byte to " + maxPayload(conf)
          + " (" + MAX_FRAME_SIZE_KEY + " minus header room), got " + conf.get(WRITE_PACKET_SIZE_KEY));
    }
    return (int) size;
  }

  /** {@link #WRITE_FLUSH_BYTES_KEY}, and never less than one packet of {@link #writePacketSize}. */
  public static int writeFlushBytes(Configuration conf) {
    long bytes = conf.getLongBytes(WRITE_FLUSH_BYTES_KEY, WRITE_FLUSH_BYTES_DEFAULT);
    if (bytes < 0 || bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(WRITE_FLUSH_BYTES_KEY + " must be from 0 to 2 GiB, got "
          + conf.get(WRITE_FLUSH_BYTES_KEY));
    }
    return (int) Math.max(bytes, writePacketSize(conf));
  }

  /** At least one 512-byte chunk, at most {@link #maxPayload}. */
  public static int readRequestSize(Configuration conf) {
    long size = conf.getLongBytes(READ_REQUEST_SIZE_KEY, READ_REQUEST_SIZE_DEFAULT);
    if (size < 512 || size > maxPayload(conf)) {
      throw new IllegalArgumentException(READ_REQUEST_SIZE_KEY + " must be from 512 bytes to " + maxPayload(conf)
          + " (" + MAX_FRAME_SIZE_KEY + " minus header room), got " + conf.get(READ_REQUEST_SIZE_KEY));
    }
    return (int) size;
  }

  /** At least {@link #readRequestSize}, at most {@link #maxPayload} (the default is cut to fit it). */
  public static int readStreamRequestSize(Configuration conf) {
    long size = conf.getLongBytes(READ_STREAM_REQUEST_SIZE_KEY,
        Math.min(READ_STREAM_REQUEST_SIZE_DEFAULT, maxPayload(conf)));
    if (size > maxPayload(conf)) {
      throw new IllegalArgumentException(READ_STREAM_REQUEST_SIZE_KEY + " must be at most " + maxPayload(conf)
          + " (" + MAX_FRAME_SIZE_KEY + " minus header room), got " + conf.get(READ_STREAM_REQUEST_SIZE_KEY));
    }
    return (int) Math.max(size, readRequestSize(conf));
  }

  public static boolean shortCircuit(Configuration conf) {
    return conf.getBoolean(SHORT_CIRCUIT_KEY, SHORT_CIRCUIT_DEFAULT);
  }

  public static boolean readPlainSockets(Configuration conf) {
    return conf.getBoolean(READ_PLAIN_SOCKETS_KEY, READ_PLAIN_SOCKETS_DEFAULT);
  }

  public static boolean shortCircuitDirectIo(Configuration conf) {
    return conf.getBoolean(SHORT_CIRCUIT_DIRECT_IO_KEY, SHORT_CIRCUIT_DIRECT_IO_DEFAULT);
  }

  public static int shortCircuitRequestSize(Configuration conf) {
    long size = conf.getLongBytes(SHORT_CIRCUIT_REQUEST_SIZE_KEY, SHORT_CIRCUIT_REQUEST_SIZE_DEFAULT);
    if (size < 4096 || size > maxPayload(conf)) {
      throw new IllegalArgumentException(SHORT_CIRCUIT_REQUEST_SIZE_KEY + " must be from 4096 bytes to "
          + maxPayload(conf) + ", got " + conf.get(SHORT_CIRCUIT_REQUEST_SIZE_KEY));
    }
    return (int) size;
  }

  public static int readRequestsInFlight(Configuration conf) {
    int n = conf.getInt(READ_REQUESTS_IN_FLIGHT_KEY, READ_REQUESTS_IN_FLIGHT_DEFAULT);
    if (n < 1) {
      throw new IllegalArgumentException(READ_REQUESTS_IN_FLIGHT_KEY + " must be at least 1, got " + n);
    }
    return n;
  }

  /** {@link #CHAIN_TIMEOUT_KEY}: from 1 ms to the response timeout, default half of that. */
  public static long chainTimeoutMillis(Configuration conf) {
    long response = responseTimeoutMillis(conf);
    long chain = conf.getTimeDuration(CHAIN_TIMEOUT_KEY, response / 2, TimeUnit.MILLISECONDS);
    return Math.max(1, Math.min(Math.min(chain, response), Integer.MAX_VALUE));
  }

  /** Whether replicated blocks are written as a chain ({@link #WRITE_PIPELINE_KEY}); else by fan-out. */
  public static boolean chainPipeline(Configuration conf) {
    String value = conf.getTrimmed(WRITE_PIPELINE_KEY, WRITE_PIPELINE_DEFAULT);
    return switch (value) {
      case "chain" -> true;
      case "fan-out" -> false;
      default -> throw new IllegalArgumentException(WRITE_PIPELINE_KEY + " must be chain or fan-out, got " + value);
    };
  }

  public static boolean latencyMode(Configuration conf) {
    return conf.getBoolean(LATENCY_MODE_KEY, LATENCY_MODE_DEFAULT);
  }

  public static long connectTimeoutMillis(Configuration conf) {
    return conf.getTimeDuration(CONNECT_TIMEOUT_KEY, CONNECT_TIMEOUT_DEFAULT_MS, TimeUnit.MILLISECONDS);
  }

  public static long responseTimeoutMillis(Configuration conf) {
    return conf.getTimeDuration(RESPONSE_TIMEOUT_KEY, RESPONSE_TIMEOUT_DEFAULT_MS, TimeUnit.MILLISECONDS);
  }

  public static int maxIdleConnections(Configuration conf) {
    return Math.max(0, conf.getInt(MAX_IDLE_CONNECTIONS_KEY, MAX_IDLE_CONNECTIONS_DEFAULT));
  }
}
