package io.fffs.client;

import io.fffs.client.data.DataTransferClient;
import io.fffs.client.data.DataTransferClients;
import io.fffs.client.errors.ClientErrors;
import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TemporalPath;
import io.fffs.common.time.TimeSpec;
import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * What one {@code FreezeFrameFileSystem} instance talks through: the NameNode client, the data-transfer client,
 * the client's HLC (observed, never ticked), its name (the lease holder) and lease renewal; plus the translation
 * of paths and statuses between Hadoop's types and the wire.
 */
final class FffsClient implements Closeable {
  private final Configuration conf;
  private final NamenodeClient nn;
  private final HybridLogicalClock clock;
  private final String clientName;
  private final LeaseRenewer renewer;
  private final boolean temporalPaths;
  private DataTransferClient data;

  FffsClient(URI uri, Configuration conf) throws IOException {
    this.conf = conf;
    this.clock = new HybridLogicalClock(PhysicalClock.system(), conf);
    int port = uri.getPort() < 0 ? FffsClientConfigKeys.DEFAULT_PORT : uri.getPort();
    this.nn = NamenodeClient.connect(new InetSocketAddress(uri.getHost(), port), conf, clock);
    this.clientName = "FFFS_CLIENT_" + UUID.randomUUID().toString().substring(0, 8) + "_"
        + Thread.currentThread().getId();
    this.renewer = new LeaseRenewer(nn, clientName, conf.getTimeDuration(
        FffsClientConfigKeys.LEASE_RENEW_INTERVAL_KEY, FffsClientConfigKeys.LEASE_RENEW_INTERVAL_DEFAULT_MS,
        TimeUnit.MILLISECONDS));
    this.temporalPaths = TemporalPath.temporalPathsEnabled(conf);
  }

  NamenodeClient namenode() {
    return nn;
  }

  HybridLogicalClock clock() {
    return clock;
  }

  String clientName() {
    return clientName;
  }

  Configuration conf() {
    return conf;
  }

  synchronized DataTransferClient data() throws IOException {
    if (data == null) {
      data = DataTransferClients.create(conf, clock);
    }
    return data;
  }

  void opened(FffsOutputStream stream) {
    renewer.opened(stream);
  }

  void closed(FffsOutputStream stream) {
    renewer.closed(stream);
  }

  /** The output streams still open, oldest first. */
  java.util.List<FffsOutputStream> openStreams() {
    java.util.List<FffsOutputStream> streams = new java.util.ArrayList<>();
    for (Object stream : renewer.openStreams()) {
      streams.add((FffsOutputStream) stream);
    }
    return streams;
  }

  /** Splits a qualified path into its plain path and time. */
  TemporalPath temporal(Path qualified) throws IOException {
    return TemporalPath.parse(qualified, temporalPaths);
  }

  /** The NameNode's form of a path: its absolute path part. */
  static String plain(TemporalPath path) {
    String plain = path.plainPath().toUri().getPath();
    return plain.isEmpty() ? "/" : plain;
  }

  /** The plain path of a path about to be changed; a temporal path is {@code READ_ONLY_PAST}. */
  String writable(Path qualified, String what) throws IOException {
    TemporalPath path = temporal(qualified);
    if (path.isTemporal()) {
      throw new FffsException(ErrorCode.READ_ONLY_PAST, "cannot " + what + " " + qualified + ": "
          + path.markerText() + " names a past state, which is read-only; " + what + " "
          + path.plainPath() + " instead");
    }
    return plain(path);
  }

  /** The blocks of {@code plain} as of {@code time} with the lengths readers see. */
  FileLayout layout(String plain, TimeSpec time, Path shown) throws IOException {
    LocatedBlocksProto located;
    try {
      located = nn.getBlockLocations(plain, time, 0, Long.MAX_VALUE);
    } catch (IOException e) {
      throw ClientErrors.translate(e);
    }
    if (located == null) {
      throw new FileNotFoundException("NOT_FOUND: " + shown + " does not exist" + at(time));
    }
    return FileLayout.resolve(shown.toString(), located, time, data());
  }

  static String at(TimeSpec time) {
    return time.isLatest() ? "" : " at " + time;
  }

  /** A Hadoop status for {@code status}, shown as {@code shown}, with the length readers see at {@code time}. */
  FileStatus toFileStatus(FileStatusProto status, Path shown, TimeSpec time) throws IOException {
    boolean directory = status.getType() == FileStatusProto.FileType.IS_DIR;
    long length = status.getLength();
    if (!directory && (status.getUnderConstruction() || time.kind() == TimeSpec.Kind.USER)) {
      length = layout(status.getPath(), time, shown).length;
    }
    return new FileStatus(length, directory, directory ? 0 : status.getReplication(),
        directory ? 0 : status.getBlockSize(), status.getModificationTime(), status.getAccessTime(),
        new FsPermission((short) status.getPermission()), status.getOwner(), status.getGroup(), shown);
  }

  @Override
  public void close() throws IOException {
    renewer.close();
    synchronized (this) {
      if (data != null) {
        data.close();
      }
    }
    nn.close();
  }
}
