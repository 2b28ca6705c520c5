package io.fffs.client;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeAdminStateProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckFileProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckReplicaProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FsckReplicaStateProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import java.util.List;

/**
 * What fsck found under a path as of a time, and its verdict, as {@code hdfs fsck} gives it: HEALTHY when every
 * block has a replica that can answer the time asked — a current one, or, for a past system time, a stale one whose
 * last entry is at or after the end of that microsecond (replicas are prefixes of one log: what it misses comes
 * later) — else
 * CORRUPT. Under-replicated blocks (fewer current replicas on DataNodes in service than the file's replication) are
 * counted, not fatal; replicas on decommissioning or decommissioned DataNodes still answer reads but do not count.
 */
public final class FsckReport {
  private final String path;
  private final TimeSpec time;
  private final List<FsckFileProto> files;
  private long blocks;
  private long missing;
  private long underReplicated;
  private long corruptReplicas;
  private long staleReplicas;
  private long deadReplicas;
  private long decommissioningReplicas;
  private long decommissionedReplicas;
  private long misReplicated;

  public FsckReport(String path, TimeSpec time, List<FsckFileProto> files) {
    this.path = path;
    this.time = time;
    this.files = List.copyOf(files);
    for (FsckFileProto file : files) {
      for (FsckBlockProto block : file.getBlocksList()) {
        blocks++;
        long current = block.getReplicasList().stream().filter(r -> r.getState() == FsckReplicaStateProto.FSCK_CURRENT
            && r.getAdminState() == DatanodeAdminStateProto.DN_NORMAL).count();
        decommissioningReplicas += block.getReplicasList().stream()
            .filter(r -> r.getAdminState() == DatanodeAdminStateProto.DN_DECOMMISSIONING).count();
        decommissionedReplicas += block.getReplicasList().stream()
            .filter(r -> r.getAdminState() == DatanodeAdminStateProto.DN_DECOMMISSIONED).count();
        corruptReplicas += count(block, FsckReplicaStateProto.FSCK_CORRUPT);
        staleReplicas += count(block, FsckReplicaStateProto.FSCK_STALE);
        deadReplicas += count(block, FsckReplicaStateProto.FSCK_DEAD);
        misReplicated += block.getMisReplicated() ? 1 : 0;
        if (!readable(block)) {
          missing++;
        } else if (current < file.getReplication()) {
          underReplicated++;
        }
      }
    }
  }

  private static long count(FsckBlockProto block, FsckReplicaStateProto state) {
    return block.getReplicasList().stream().filter(r -> r.getState() == state).count();
  }

  /** Whether a replica of {@code block} can answer the time asked. */
  private boolean readable(FsckBlockProto block) {
    for (FsckReplicaProto replica : block.getReplicasList()) {
      if (replica.getState() == FsckReplicaStateProto.FSCK_CURRENT) {
        return true;
      }
      if (replica.getState() == FsckReplicaStateProto.FSCK_STALE && time.kind() == TimeSpec.Kind.SYSTEM
          && replica.getLastEntryHlc() >= ((time.micros() + 1) << HlcTimestamp.LOGICAL_BITS) - 1) {
        return true;
      }
    }
    return false;
  }

  public boolean healthy() {
    return missing == 0;
  }

  public List<FsckFileProto> files() {
    return files;
  }

  /** The files open for write (as of the time checked). */
  public long openFiles() {
    return files.stream().filter(FsckFileProto::hasOpenBy).count();
  }

  public long blocks() {
    return blocks;
  }

  /** Blocks no replica can answer the time for. */
  public long missingBlocks() {
    return missing;
  }

  public long underReplicatedBlocks() {
    return underReplicated;
  }

  /** Blocks whose current replicas share one rack though the cluster has more. */
  public long misReplicatedBlocks() {
    return misReplicated;
  }

  /** Replicas on DataNodes being decommissioned. */
  public long decommissioningReplicas() {
    return decommissioningReplicas;
  }

  /** Replicas on decommissioned DataNodes. */
  public long decommissionedReplicas() {
    return decommissionedReplicas;
  }

  public long corruptReplicas() {
    return corruptReplicas;
  }

  /**
   * The report as text: with {@code listFiles} a line per file, with {@code listBlocks} a line per block, with
   * {@code locations} each replica's DataNode, state, last entry and length; then the counts and the verdict.
   */
  public String render(boolean listFiles, boolean listBlocks, boolean locations) {
    return render(listFiles, listBlocks, locations, false);
  }

  /** {@link #render(boolean, boolean, boolean)}, listing every file open for write too when {@code openForWrite}. */
  public String render(boolean listFiles, boolean listBlocks, boolean locations, boolean openForWrite) {
    StringBuilder out = new StringBuilder("FFFS fsck of ").append(path).append(" as of ").append(time).append('\n');
    for (FsckFileProto file : files) {
      boolean fileOk = file.getBlocksList().stream().allMatch(this::readable);
      boolean listedOpen = openForWrite && file.hasOpenBy();
      if (listFiles || listBlocks || !fileOk || listedOpen) {
        out.append(file.getPath()).append(' ').append(file.getLength()).append(" bytes, replication ")
            .append(file.getReplication()).append(", ").append(file.getBlocksCount()).append(" block(s): ")
            .append(fileOk ? "OK" : "CORRUPT")
            .append(listedOpen ? " OPENFORWRITE by " + file.getOpenBy() : "").append('\n');
      }
      if (!listBlocks) {
        continue;
      }
      for (int i = 0; i < file.getBlocksCount(); i++) {
        FsckBlockProto block = file.getBlocks(i);
        out.append(i).append(". blk_").append(block.getBlockId()).append(" len=").append(block.getNumBytes())
            .append(" current=").append(count(block, FsckReplicaStateProto.FSCK_CURRENT))
            .append(readable(block) ? "" : " MISSING").append(block.getMisReplicated() ? " MIS-REPLICATED" : "");
        if (locations) {
          out.append(" [");
          for (int r = 0; r < block.getReplicasCount(); r++) {
            FsckReplicaProto replica = block.getReplicas(r);
            out.append(r == 0 ? "" : ", ").append(replica.getDatanode().getHost()).append(':')
                .append(replica.getDatanode().getDataPort())
                .append(replica.hasRack() ? " " + replica.getRack() : "").append(' ')
                .append(replica.getState().name().substring("FSCK_".length()))
                .append(replica.getAdminState() == DatanodeAdminStateProto.DN_NORMAL ? ""
                    : replica.getAdminState() == DatanodeAdminStateProto.DN_DECOMMISSIONING
                        ? " DECOMMISSIONING" : " DECOMMISSIONED")
                .append(" last=").append(HlcTimestamp.valueOf(replica.getLastEntryHlc()))
                .append(" len=").append(replica.getLength());
          }
          out.append(']');
        }
        out.append('\n');
      }
    }
    out.append("Status: ").append(healthy() ? "HEALTHY" : "CORRUPT").append('\n')
        .append(" Total files:\t").append(files.size()).append('\n')
        .append(" Files open for write:\t").append(openFiles()).append('\n')
        .append(" Total blocks:\t").append(blocks).append('\n')
        .append(" Missing blocks:\t").append(missing).append('\n')
        .append(" Under-replicated blocks:\t").append(underReplicated).append('\n')
        .append(" Mis-replicated blocks:\t").append(misReplicated).append('\n')
        .append(" Corrupt replicas:\t").append(corruptReplicas).append('\n')
        .append(" Stale replicas:\t").append(staleReplicas).append('\n')
        .append(" Dead replicas:\t").append(deadReplicas).append('\n')
        .append(" Decommissioning replicas:\t").append(decommissioningReplicas).append('\n')
        .append(" Decommissioned replicas:\t").append(decommissionedReplicas).append('\n')
        .append("The filesystem under path '").append(path).append("' is ")
        .append(healthy() ? "HEALTHY" : "CORRUPT").append('\n');
    return out.toString();
  }
}
