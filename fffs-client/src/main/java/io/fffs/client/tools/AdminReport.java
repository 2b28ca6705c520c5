package io.fffs.client.tools;

import io.fffs.common.proto.NamenodeAdminProtocolProtos.DatanodeReportProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.DatanodeReportResponseProto;
import io.fffs.common.time.HlcTimestamp;
import java.io.PrintStream;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** The text of {@code bin/fffs admin -report} and {@code -printTopology}, laid out as HDFS's dfsadmin does. */
final class AdminReport {
  private AdminReport() {}

  static void print(DatanodeReportResponseProto report, PrintStream out) {
    long capacity = 0;
    long used = 0;
    for (DatanodeReportProto d : report.getDatanodesList()) {
      capacity += d.getCapacityBytes();
      used += d.getMemoryUsedBytes();
    }
    out.println("Cluster: " + report.getClusterId());
    out.println("Safe mode: " + (report.getSafemode() ? "ON" : "OFF"));
    out.println("Arena capacity: " + bytes(capacity));
    out.println("Arena used: " + bytes(used) + percent(used, capacity));
    out.println("Files and directories: " + report.getFiles());
    out.println("Blocks: " + report.getBlocks() + " (under-replicated " + report.getUnderReplicatedBlocks()
        + ", missing " + report.getMissingBlocks() + ")");
    List<DatanodeReportProto> live = sorted(report).stream().filter(DatanodeReportProto::getLive).toList();
    List<DatanodeReportProto> dead = sorted(report).stream().filter(d -> !d.getLive()).toList();
    section(out, "Live", live);
    section(out, "Dead", dead);
  }

  private static void section(PrintStream out, String what, List<DatanodeReportProto> datanodes) {
    out.println();
    out.println("-------------------------------------------------");
    out.println(what + " datanodes (" + datanodes.size() + "):");
    for (DatanodeReportProto d : datanodes) {
      out.println();
      out.println("Name: " + d.getId().getHost() + ":" + d.getId().getDataPort() + " ("
          + d.getId().getDatanodeUuid() + ")");
      if (d.getId().getHttpPort() != 0) {
        out.println("HTTP: http://" + d.getId().getHost() + ":" + d.getId().getHttpPort() + "/");
      }
      out.println("Transport: " + d.getId().getTransport()
          + (d.getId().getTransportPort() == 0 ? "" : " (port " + d.getId().getTransportPort() + ")"));
      out.println("Arena capacity: " + bytes(d.getCapacityBytes()));
      out.println("Arena used: " + bytes(d.getMemoryUsedBytes()) + percent(d.getMemoryUsedBytes(),
          d.getCapacityBytes()));
      out.println("Blocks: " + d.getBlockCount());
      if (d.getSegmentBytes() > 0) {
        long history = Math.max(0, d.getLiveSegmentBytes() - d.getCurrentBytes());
        out.println("Disk: " + bytes(d.getSegmentBytes()) + " in segment files: live " + bytes(d.getLiveSegmentBytes())
            + " (latest states " + bytes(d.getCurrentBytes()) + ", history " + bytes(history) + "), reclaimable "
            + bytes(Math.max(0, d.getSegmentBytes() - d.getLiveSegmentBytes())));
      }
      out.println("Durable frontier: " + HlcTimestamp.fromProto(d.getDurableHlc()) + " (lag "
          + millis(d.getDurableLagMicros()) + ")");
      out.println("Clock offset: " + (d.hasMeasuredOffsetMicros() ? millis(d.getMeasuredOffsetMicros()) + " ± "
          + millis(d.getOffsetErrorMicros()) : "not measured yet") + " (judged " + millis(d.getClockOffsetMicros())
          + ")");
      out.println("Rack: " + rack(d));
      out.println("Decommission Status : " + adminState(d));
      out.println("Health: " + (d.getHealthy() ? "healthy" : "UNHEALTHY: " + d.getUnhealthyReason()));
      if (d.getScrubCorruptions() > 0) {
        out.println("Scrubber found damaged records: " + d.getScrubCorruptions());
      }
      out.println("Last contact: " + d.getLastContactMillis() + " ms ago");
    }
  }

  private static String adminState(DatanodeReportProto d) {
    return switch (d.getAdminState()) {
      case DN_DECOMMISSIONING -> "Decommission in progress (" + d.getDecommissionBlocksLeft()
          + " blocks left to replicate)";
      case DN_DECOMMISSIONED -> "Decommissioned";
      default -> "Normal";
    };
  }

  static void printTopology(DatanodeReportResponseProto report, PrintStream out) {
    java.util.Map<String, List<DatanodeReportProto>> racks = new java.util.TreeMap<>();
    for (DatanodeReportProto d : sorted(report)) {
      racks.computeIfAbsent(rack(d), r -> new java.util.ArrayList<>()).add(d);
    }
    for (java.util.Map.Entry<String, List<DatanodeReportProto>> rack : racks.entrySet()) {
      out.println("Rack: " + rack.getKey());
      for (DatanodeReportProto d : rack.getValue()) {
        out.println("   " + d.getId().getHost() + ":" + d.getId().getDataPort() + " ("
            + d.getId().getDatanodeUuid() + ")" + (d.getLive() ? "" : " dead") + (d.getHealthy() ? "" : " unhealthy"));
      }
      out.println();
    }
  }

  private static String rack(DatanodeReportProto d) {
    return d.hasRack() ? d.getRack() : "/default-rack";
  }

  private static List<DatanodeReportProto> sorted(DatanodeReportResponseProto report) {
    return report.getDatanodesList().stream().sorted(Comparator.comparing(
        (DatanodeReportProto d) -> d.getId().getHost()).thenComparing(d -> d.getId().getDataPort())).toList();
  }

  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    double value = n;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return n + " (" + String.format(Locale.ROOT, "%.2f %s", value, units[unit]) + ")";
  }

  private static String percent(long part, long whole) {
    return whole <= 0 ? "" : String.format(Locale.ROOT, " (%.2f%%)", 100.0 * part / whole);
  }

  private static String millis(long micros) {
    return String.format(Locale.ROOT, "%+.3f ms", micros / 1000.0);
  }
}
