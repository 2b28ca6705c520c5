package io.fffs.datanode.server;

import io.fffs.common.error.FffsException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The write streams of one client connection that failed, whose later packets are refused so that nothing after a
 * failed write is applied (a client stream numbers its packets with one {@code streamId}). The most recent
 * {@value #MAX_FAILED_STREAMS} are kept. Used by one applying thread at a time.
 */
public final class StreamFailures {
  private static final int MAX_FAILED_STREAMS = 1024;

  private final Map<Long, FffsException> failed = new LinkedHashMap<>() {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, FffsException> eldest) {
      return size() > MAX_FAILED_STREAMS;
    }
  };

  /** The failure of an earlier packet of {@code streamId}, or null. */
  public FffsException of(long streamId) {
    return failed.get(streamId);
  }

  /** Keeps the first failure of {@code streamId}. */
  public void fail(long streamId, FffsException failure) {
    failed.putIfAbsent(streamId, failure);
  }
}
