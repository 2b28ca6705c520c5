package io.fffs.datanode.nn;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this DataNode may take writes, as the NameNode last judged it (its clock offset): null reason means
 * healthy. Changes are logged once.
 */
public final class NodeHealth {
  private static final Logger LOG = LoggerFactory.getLogger(NodeHealth.class);
  private volatile String unhealthyReason;

  /** Why writes are refused now, or null. */
  public String unhealthyReason() {
    return unhealthyReason;
  }

  public boolean healthy() {
    return unhealthyReason == null;
  }

  /** Records the NameNode's verdict: null for healthy, else the reason. */
  public synchronized void set(String reason) {
    String before = unhealthyReason;
    unhealthyReason = reason;
    if (before == null && reason != null) {
      LOG.warn("The NameNode says this DataNode is unhealthy; refusing writes: {}", reason);
    } else if (before != null && reason == null) {
      LOG.info("The NameNode says this DataNode is healthy again; taking writes");
    }
  }
}
