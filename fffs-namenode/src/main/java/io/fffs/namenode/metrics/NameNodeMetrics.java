package io.fffs.namenode.metrics;

import io.fffs.namenode.fs.Namesystem;
import java.io.IOException;
import org.apache.hadoop.metrics2.annotation.Metric;
import org.apache.hadoop.metrics2.annotation.Metrics;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;

/**
 * The NameNode's metrics (metrics2, so they appear in {@code /jmx} and {@code /prom}). Each is a gauge read from
 * the namesystem when the metrics system samples it.
 */
@Metrics(about = "FFFS NameNode", context = "fffs")
public final class NameNodeMetrics {
  private final Namesystem fs;

  private NameNodeMetrics(Namesystem fs) {
    this.fs = fs;
  }

  /** Registers the metrics of {@code fs} under {@code name}. */
  public static NameNodeMetrics register(String name, Namesystem fs) {
    return DefaultMetricsSystem.instance().register(name, "FFFS NameNode", new NameNodeMetrics(fs));
  }

  public static void unregister(String name) {
    DefaultMetricsSystem.instance().unregisterSource(name);
  }

  @Metric("Physical part of the NameNode's HLC, µs since the epoch")
  public long getHlcPhysicalMicros() {
    return fs.clock().now().physicalMicros();
  }

  @Metric("Inodes ever created (files and directories, history included)")
  public long getInodes() throws IOException {
    return fs.inodeCount();
  }

  @Metric("Blocks ever allocated")
  public long getBlocks() {
    return fs.blockCount();
  }

  @Metric("Last transaction id of the edit log")
  public long getLastTxid() {
    return fs.lastTxid();
  }

  @Metric("DataNodes that sent a heartbeat within the dead interval")
  public int getLiveDatanodes() {
    return fs.datanodes().liveCount();
  }

  @Metric("1 while the NameNode is in safe mode")
  public int getSafeMode() {
    return fs.safeMode().isOn() ? 1 : 0;
  }

  @Metric("Damaged segment records the DataNodes' scrubbers found")
  public long getScrubCorruptions() {
    return fs.datanodes().scrubCorruptions();
  }
}
