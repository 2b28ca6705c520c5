package io.fffs.http;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;

/** WebHDFS gateway configuration: each key beside its default and typed getter. */
public final class HttpConfigKeys {
  /** Where the gateway listens (host:port); port 0 picks a free one. */
  public static final String ADDRESS_KEY = "fffs.http.address";
  public static final String ADDRESS_DEFAULT = "127.0.0.1:9860";

  /** The file system the gateway serves ({@code fffs://host:port}); default {@code fs.defaultFS}. */
  public static final String FILESYSTEM_KEY = "fffs.http.filesystem";

  /**
   * The gateways OPEN, CREATE and APPEND are redirected to ({@code host:port,...}), one beside each DataNode.
   * Empty: this gateway moves the bytes itself (still answering the first step with a redirect, as clients expect).
   */
  public static final String DATA_GATEWAYS_KEY = "fffs.http.data-gateways";

  /** The user of a request without {@code user.name} (Hadoop's {@code hadoop.http.staticuser.user}). */
  public static final String STATIC_USER_KEY = "hadoop.http.staticuser.user";
  public static final String STATIC_USER_DEFAULT = "dr.who";

  /** Bytes of request line plus headers; a larger request is refused with 431. */
  public static final String MAX_HEADER_BYTES_KEY = "fffs.http.max-header-bytes";
  public static final int MAX_HEADER_BYTES_DEFAULT = 16 * 1024;

  /** Body bytes an operation that takes no data accepts; a larger body is refused with 413. */
  public static final String MAX_METADATA_BODY_BYTES_KEY = "fffs.http.max-metadata-body-bytes";
  public static final int MAX_METADATA_BODY_BYTES_DEFAULT = 64 * 1024;

  /** A connection idle this long (a client that stops sending) is closed. */
  public static final String IDLE_TIMEOUT_KEY = "fffs.http.idle-timeout";
  public static final long IDLE_TIMEOUT_DEFAULT_MS = 30_000;

  /** Request threads (each request holds one while it runs; data requests stream on theirs). */
  public static final String MAX_THREADS_KEY = "fffs.http.max-threads";
  public static final int MAX_THREADS_DEFAULT = 64;

  /** Users whose file-system clients stay open between requests; the least recently used beyond are closed. */
  public static final String USER_CACHE_KEY = "fffs.http.user-cache";
  public static final int USER_CACHE_DEFAULT = 32;

  /** Bytes copied at a time between a request or response body and a file. */
  public static final String COPY_BUFFER_KEY = "fffs.http.copy-buffer-bytes";
  public static final int COPY_BUFFER_DEFAULT = 1 << 20;

  /** Entries per page of {@code LISTSTATUS_BATCH} (HDFS's {@code dfs.ls.limit}). */
  public static final String LIST_BATCH_KEY = "fffs.http.liststatus-batch-size";
  public static final int LIST_BATCH_DEFAULT = 1000;

  private HttpConfigKeys() {}

  /** {@link #DATA_GATEWAYS_KEY} as {@code host:port} strings, in order. */
  public static List<String> dataGateways(Configuration conf) {
    List<String> gateways = new ArrayList<>();
    for (String gateway : conf.getTrimmedStrings(DATA_GATEWAYS_KEY)) {
      if (!gateway.isEmpty()) {
        gateways.add(gateway);
      }
    }
    return gateways;
  }

  public static long idleTimeoutMs(Configuration conf) {
    return conf.getTimeDuration(IDLE_TIMEOUT_KEY, IDLE_TIMEOUT_DEFAULT_MS, TimeUnit.MILLISECONDS);
  }
}
