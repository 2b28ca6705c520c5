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
  /** Pin name → moment (µs): a {@code @pin-<name>} marker is looked up once per client. */
  private final java.util.concurrent.ConcurrentMap<String, Long> pins = new java.util.concurrent.ConcurrentHashMap<>();
  private DataTransferClient data;
  private final ReadRelocation relocation;
  /** Set by {@link #close}; guarded by this. */
  private boolean closed;

  FffsClient(URI uri, Configuration conf) throws IOException {
    this.conf = conf;
    this.clock = new HybridLogicalClock(PhysicalClock.system(), conf);
    if (io.fffs.common.ha.HaConfigKeys.isLogical(conf, uri.getAuthority())) {
      // A job's token for the cluster serves each NameNode's connection (the client follows the leader).
      io.fffs.client.security.DelegationTokenClient.copyForEachNameNode(
          org.apache.hadoop.security.UserGroupInformation.getCurrentUser(), uri.getHost(), conf);
      this.nn = NamenodeClient.connectHa(uri.getHost(), conf, clock);  // fffs://mycluster: follows the leader
    } else {
      int port = uri.getPort() < 0 ? FffsClientConfigKeys.DEFAULT_PORT : uri.getPort();
      this.nn = NamenodeClient.connect(new InetSocketAddress(uri.getHost(), port), conf, clock);
    }
    this.clientName = "FFFS_CLIENT_" + UUID.randomUUID().toString().substring(0, 8) + "_"
        + Thread.currentThread().getId();
    this.renewer = new LeaseRenewer(nn, clientName, conf.getTimeDuration(
        FffsClientConfigKeys.LEASE_RENEW_INTERVAL_KEY, FffsClientConfigKeys.LEASE_RENEW_INTERVAL_DEFAULT_MS,
        TimeUnit.MILLISECONDS));
    this.temporalPaths = TemporalPath.temporalPathsEnabled(conf);
    this.relocation = ReadRelocation.of(conf);
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

  /** Creates the data-transfer client ahead of the first read, unless this client was closed ({@link ClientWarmUp}). */
  synchronized void prepareData() throws IOException {
    if (!closed) {
      data();
    }
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

  /**
   * The suffix Hadoop's copy commands ({@code fs -put}, {@code -cp}, {@code -get}) give the file they write before
   * renaming it onto the target.
   */
  static final String COPYING_SUFFIX = "._COPYING_";

  /** Splits a qualified path into its plain path and time; a pin marker is resolved to its moment. */
  TemporalPath temporal(Path qualified) throws IOException {
    return resolvePin(parsed(qualified));
  }

  /** Splits a qualified path into its plain path and marker, without looking a pin up. */
  private TemporalPath parsed(Path qualified) throws IOException {
    try {
      return TemporalPath.parse(qualified, temporalPaths);
    } catch (FffsException malformed) {
      TemporalPath copying = copyingIntoThePast(qualified);
      if (copying == null) {
        throw malformed;
      }
      return copying;
    }
  }

  /**
   * {@code fs -put x /a/f@s1} checks and writes {@code /a/f@s1._COPYING_}, whose marker does not parse. Read as
   * what it is, {@code /a/f._COPYING_} at that time, it is not found and its creation is refused as
   * {@code READ_ONLY_PAST} instead of a puzzling {@code MALFORMED_TIME}. Null for any other path.
   */
  private TemporalPath copyingIntoThePast(Path qualified) throws FffsException {
    String name = qualified.getName();
    if (!name.endsWith(COPYING_SUFFIX) || qualified.getParent() == null) {
      return null;
    }
    Path target = new Path(qualified.getParent(), name.substring(0, name.length() - COPYING_SUFFIX.length()));
    TemporalPath parsed;
    try {
      parsed = TemporalPath.parse(target, temporalPaths);
    } catch (FffsException stillMalformed) {
      return null;
    }
    if (!parsed.isTemporal() || !target.getName().endsWith(parsed.markerText())) {
      return null;
    }
    if (parsed.pinName() != null) {
      return null;  // copying into a pinned past is refused as any write to a marked path
    }
    Path plain = parsed.plainPath();
    Path copying = new Path(plain.getParent(), plain.getName() + COPYING_SUFFIX);
    return TemporalPath.parse(TemporalPath.withTime(copying, parsed.timeSpec()), temporalPaths);
  }

  /** {@code path} with its pin marker, if it has one, resolved to the pinned moment (looked up once per name). */
  TemporalPath resolvePin(TemporalPath path) throws IOException {
    String name = path.pinName();
    if (name == null) {
      return path;
    }
    Long micros = pins.get(name);
    if (micros == null) {
      try {
        micros = nn.getPin(name).getMicros();
      } catch (IOException e) {
        throw ClientErrors.translate(e);
      }
      pins.put(name, micros);
    }
    return path.resolvePin(micros);
  }

  /** Forgets a pin looked up before (it was removed through this client). */
  void forgetPin(String name) {
    pins.remove(name);
  }

  /** The NameNode's form of a path: its absolute path part. */
  static String plain(TemporalPath path) {
    String plain = path.plainPath().toUri().getPath();
    return plain.isEmpty() ? "/" : plain;
  }

  /** The plain path of a path about to be changed; a temporal path is {@code READ_ONLY_PAST}. */
  String writable(Path qualified, String what) throws IOException {
    TemporalPath path = parsed(qualified);
    if (path.isTemporal()) {
      Path shown = qualified;
      Path instead = path.plainPath();
      if (instead.getName().endsWith(COPYING_SUFFIX) && instead.getName().length() > COPYING_SUFFIX.length()) {
        // A shell copy's temporary file: name the target the user gave.
        String plainName = instead.getName();
        instead = new Path(instead.getParent(), plainName.substring(0, plainName.length() - COPYING_SUFFIX.length()));
        String shownName = shown.getName();
        shown = new Path(shown.getParent(), shownName.substring(0, shownName.length() - COPYING_SUFFIX.length()));
        what = "copy to";
      }
      throw new FffsException(ErrorCode.READ_ONLY_PAST, "cannot " + what + " " + shown + ": "
          + path.markerText() + " names a past state, which is read-only; " + what + " " + instead + " instead");
    }
    return plain(path);
  }

  /** The blocks of {@code plain} as of {@code time} with the lengths readers see. */
  FileLayout layout(String plain, TimeSpec time, Path shown) throws IOException {
    for (int attempt = 0; ; attempt++) {
      LocatedBlocksProto located;
      try {
        located = nn.getBlockLocations(plain, time, 0, Long.MAX_VALUE);
      } catch (IOException e) {
        throw ClientErrors.translate(e);
      }
      if (located == null) {
        throw new FileNotFoundException("NOT_FOUND: " + shown + " does not exist" + at(time));
      }
      try {
        return FileLayout.resolve(shown.toString(), located, time, data());
      } catch (IOException e) {
        // The last block's length comes from its replicas: when none listed could answer, list them again.
        if (!relocation.again(e, attempt, shown.toString())) {
          throw e;
        }
      }
    }
  }

  /** When a read whose listed replicas all failed asks the NameNode for them again. */
  ReadRelocation relocation() {
    return relocation;
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
    return new FffsFileStatus(length, directory, directory ? 0 : status.getReplication(),
        directory ? 0 : status.getBlockSize(), status.getModificationTime(), status.getAccessTime(),
        new FsPermission((short) status.getPermission()), status.getOwner(), status.getGroup(), shown,
        status.getInodeId(), status.getVersionHlc().getPacked());
  }

  @Override
  public void close() throws IOException {
    renewer.close();
    synchronized (this) {
      closed = true;
      if (data != null) {
        data.close();
      }
    }
    nn.close();
  }
}
