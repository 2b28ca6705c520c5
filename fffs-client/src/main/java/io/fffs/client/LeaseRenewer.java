package io.fffs.client;

import io.fffs.client.rpc.NamenodeClient;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Renews this client's leases while it has files open for writing (one daemon thread per client). */
final class LeaseRenewer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseRenewer.class);

  private final NamenodeClient nn;
  private final String clientName;
  private final long intervalMs;
  private final Set<Object> open = ConcurrentHashMap.newKeySet();
  private ScheduledExecutorService timer;
  private ScheduledFuture<?> task;

  LeaseRenewer(NamenodeClient nn, String clientName, long intervalMs) {
    this.nn = nn;
    this.clientName = clientName;
    this.intervalMs = intervalMs;
  }

  synchronized void opened(Object stream) {
    open.add(stream);
    if (task == null) {
      if (timer == null) {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
          Thread thread = new Thread(r, "fffs-lease-renewer-" + clientName);
          thread.setDaemon(true);
          return thread;
        });
      }
      task = timer.scheduleWithFixedDelay(this::renew, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }
  }

  synchronized void closed(Object stream) {
    open.remove(stream);
    if (open.isEmpty() && task != null) {
      task.cancel(false);
      task = null;
    }
  }

  Set<Object> openStreams() {
    return open;
  }

  private void renew() {
    try {
      nn.renewLease(clientName);
    } catch (Exception e) {
      LOG.warn("Could not renew the lease of {}; will retry: {}", clientName, e.getMessage());
    }
  }

  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
