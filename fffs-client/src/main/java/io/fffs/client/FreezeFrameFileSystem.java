package io.fffs.client;

import io.fffs.client.errors.ClientErrors;
import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.ContentSummaryProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.GetListingResponseProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.GetStatsResponseProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.OpenForWriteResponseProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.ServerDefaultsProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.TruncateResponseProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.VersionProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TemporalPath;
import io.fffs.common.time.TimeSpec;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.ContentSummary;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsServerDefaults;
import org.apache.hadoop.fs.FsStatus;
import org.apache.hadoop.fs.InvalidPathHandleException;
import org.apache.hadoop.fs.LeaseRecoverable;
import org.apache.hadoop.fs.Options.ChecksumCombineMode;
import org.apache.hadoop.fs.Options.HandleOpt;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathHandle;
import org.apache.hadoop.fs.SafeMode;
import org.apache.hadoop.fs.SafeModeAction;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.DataChecksum;
import org.apache.hadoop.util.Progressable;

/**
 * The {@code fffs://} Hadoop {@link FileSystem}: a drop-in HDFS whose every path can be read as it was at any past
 * moment. A path may carry a time marker ({@code /t@s1763719200000/part-0}, see {@link TemporalPath}); reads,
 * statuses, listings, summaries and block locations honour it, listings keep it on their children, and writes to
 * it are refused ({@code READ_ONLY_PAST}). The time-aware Java API takes a {@link TimeSpec} instead. Output
 * streams ({@link FffsDataOutputStream}) can seek and write in place.
 */
public class FreezeFrameFileSystem extends FileSystem implements LeaseRecoverable, SafeMode {
  public static final String SCHEME = "fffs";
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FreezeFrameFileSystem.class);

  private URI uri;
  private Path workingDirectory;
  private FffsClient client;
  private HistoryCalls history;

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    super.initialize(name, conf);
    setConf(conf);
    this.uri = URI.create(SCHEME + "://" + name.getAuthority());
    this.client = new FffsClient(name, conf);
    ClientWarmUp.start(client);
    this.history = new HistoryCalls(client, this::qualify);
    this.workingDirectory = makeQualified(getHomeDirectory());
  }

  @Override
  public String getScheme() {
    return SCHEME;
  }

  @Override
  public URI getUri() {
    return uri;
  }

  @Override
  protected int getDefaultPort() {
    return FffsClientConfigKeys.DEFAULT_PORT;
  }

  /** The NameNode's address, or {@code ha-fffs:name} for a cluster of several: what its tokens are kept under. */
  @Override
  public String getCanonicalServiceName() {
    return io.fffs.client.security.DelegationTokenClient.serviceOf(uri, getConf(), getDefaultPort());
  }

  /**
   * A delegation token for this file system's NameNode, renewable by {@code renewer} (what
   * {@code addDelegationTokens} collects for a job); null when the NameNode has no Kerberos, as Hadoop's default.
   */
  @Override
  public org.apache.hadoop.security.token.Token<?> getDelegationToken(String renewer) throws IOException {
    return io.fffs.client.security.DelegationTokenClient.get(nn(), renewer, getCanonicalServiceName());
  }

  @Override
  public long getDefaultBlockSize(Path path) {
    return getConf().getLongBytes(FffsClientConfigKeys.BLOCK_SIZE_KEY, FffsClientConfigKeys.BLOCK_SIZE_DEFAULT);
  }

  @Override
  @SuppressWarnings("deprecation")
  public long getDefaultBlockSize() {
    return getDefaultBlockSize(null);
  }

  @Override
  public short getDefaultReplication(Path path) {
    return FffsClientConfigKeys.replication(getConf());
  }

  @Override
  @SuppressWarnings("deprecation")
  public short getDefaultReplication() {
    return getDefaultReplication(null);
  }

  @Override
  public Path getWorkingDirectory() {
    return workingDirectory;
  }

  @Override
  public void setWorkingDirectory(Path dir) {
    workingDirectory = qualify(dir);
  }

  @Override
  public Path getHomeDirectory() {
    try {
      return makeQualified(new Path("/user/" + UserGroupInformation.getCurrentUser().getShortUserName()));
    } catch (IOException e) {
      return makeQualified(new Path("/user/" + System.getProperty("user.name")));
    }
  }

  private Path qualify(Path path) {
    return path.makeQualified(uri, workingDirectory == null ? new Path("/") : workingDirectory);
  }

  private NamenodeClient nn() {
    return client.namenode();
  }

  private FsPermission masked(FsPermission permission) {
    return (permission == null ? FsPermission.getFileDefault() : permission).applyUMask(
        FsPermission.getUMask(getConf()));
  }

  // ---- reads -------------------------------------------------------------------------------------------------

  @Override
  public FSDataInputStream open(Path path, int bufferSize) throws IOException {
    TemporalPath temporal = client.temporal(qualify(path));
    return open(temporal.originalPath(), FffsClient.plain(temporal), temporal.timeSpec());
  }

  /** Opens {@code path} as it was at {@code time}. */
  public FSDataInputStream open(Path path, TimeSpec time) throws IOException {
    TemporalPath temporal = client.temporal(qualify(path));
    return open(TemporalPath.withTime(temporal.plainPath(), time), FffsClient.plain(temporal), time);
  }

  private FSDataInputStream open(Path shown, String plain, TimeSpec time) throws IOException {
    statistics.incrementReadOps(1);
    return stream(client.layout(plain, time, shown), plain, time);
  }

  /** A stream over {@code layout}, the blocks of {@code plain} as of {@code time}. */
  private FSDataInputStream stream(FileLayout layout, String plain, TimeSpec time) throws IOException {
    return new FSDataInputStream(new FffsInputStream(layout, client.data(),
        FffsClientConfigKeys.readBufferSize(getConf()), () -> nn().getBlockLocations(plain, time, 0, Long.MAX_VALUE),
        (blockId, replica, reason) -> {
          try {
            nn().reportBadReplica(blockId, replica.getDatanodeUuid(), reason);
          } catch (IOException e) {
            // The read went on from another replica; the DataNode's own checks find the damage later.
          }
        }, client.relocation()));
  }

  /**
   * HDFS's file checksum of {@code path} (at the time its name gives), made by its DataNodes from the chunk CRCs they
   * keep: MD5-of-MD5-of-CRC32C, or with {@code dfs.checksum.combine.mode=COMPOSITE_CRC} the CRC32C of its bytes.
   */
  @Override
  public FileChecksum getFileChecksum(Path path) throws IOException {
    return getFileChecksum(path, Long.MAX_VALUE);
  }

  /** {@link #getFileChecksum(Path)} of the first {@code length} bytes (all of a shorter file). */
  @Override
  public FileChecksum getFileChecksum(Path path, long length) throws IOException {
    return getFileChecksum(path, length, FileChecksums.mode(getConf()));
  }

  /** {@link #getFileChecksum(Path, long)} in the form {@code mode} asks for, whatever the configuration says. */
  public FileChecksum getFileChecksum(Path path, long length, ChecksumCombineMode mode) throws IOException {
    statistics.incrementReadOps(1);
    TemporalPath temporal = client.temporal(qualify(path));
    String plain = FffsClient.plain(temporal);
    TimeSpec time = temporal.timeSpec();
    FileLayout layout = client.layout(plain, time, temporal.originalPath());
    return FileChecksums.of(layout, length, mode, client.data(),
        () -> nn().getBlockLocations(plain, time, 0, Long.MAX_VALUE), client.relocation());
  }

  /**
   * A handle to the file {@code status} shows ({@link FffsPathHandle}): {@code opts} say whether its bytes and its
   * place may change before it is opened (an option left out: they may). A status of a past system time (or pin)
   * names that state; one by user time is refused. A status that does not name its inode ({@code listFiles} gives
   * {@code LocatedFileStatus} copies) stands for the file at its path now.
   */
  @Override
  protected PathHandle createPathHandle(FileStatus status, HandleOpt... opts) {
    FffsFileStatus shown;
    TemporalPath named;
    try {
      shown = status instanceof FffsFileStatus ? (FffsFileStatus) status
          : (FffsFileStatus) getFileStatus(status.getPath());
      named = client.temporal(qualify(shown.getPath()));
    } catch (IOException e) {
      throw new UncheckedIOException("no path handle of " + status.getPath() + ": " + e.getMessage(), e);
    }
    if (shown.isDirectory()) {
      throw new IllegalArgumentException(status.getPath() + " is a directory; path handles name files");
    }
    TimeSpec time = named.timeSpec();
    if (time.kind() == TimeSpec.Kind.USER) {
      throw new IllegalArgumentException(status.getPath() + " names a state by user time, which later writes may "
          + "change; make the handle of a system time (@s…) or of the latest state");
    }
    boolean mayChange = HandleOpt.getOpt(HandleOpt.Data.class, opts).map(HandleOpt.Data::allowChange).orElse(true);
    boolean mayMove = HandleOpt.getOpt(HandleOpt.Location.class, opts).map(HandleOpt.Location::allowChange)
        .orElse(true);
    // A pin may be made again at another moment: the handle keeps the moment it names now.
    Path path = time.isLatest() ? named.plainPath() : TemporalPath.withTime(named.plainPath(), time);
    return new FffsPathHandle(shown.inodeId(), shown.versionHlc(), path.toString(), mayChange, mayMove);
  }

  /**
   * Opens the file of {@code handle} where it is now ({@link InvalidPathHandleException} when it was deleted, or
   * moved or changed where the handle does not allow it), with the blocks of that very inode: a file that took its
   * name meanwhile is never read. A handle of a past state opens that state.
   */
  @Override
  public FSDataInputStream open(PathHandle handle, int bufferSize) throws IOException {
    FffsPathHandle file = FffsPathHandle.of(handle);
    Path handlePath = new Path(file.path);
    String authority = handlePath.toUri().getAuthority();
    if (authority != null && !authority.equals(getUri().getAuthority())) {
      throw new InvalidPathHandleException("the handle " + file + " was made by another file system ("
          + authority + "), not this one (" + getUri().getAuthority() + ")");
    }
    TemporalPath named = client.temporal(qualify(handlePath));
    String plain = FffsClient.plain(named);
    if (!named.timeSpec().isLatest()) {
      FileStatusProto then = ClientErrors.translating(() -> nn().getFileInfo(plain, named.timeSpec()));
      if (then == null || then.getInodeId() != file.inodeId) {
        throw new InvalidPathHandleException(file.path + " no longer shows the file of " + file);
      }
      return open(named.originalPath(), plain, named.timeSpec());
    }
    for (int attempt = 1; ; attempt++) {
      FileStatusProto now = ClientErrors.translating(() -> nn().getFileInfoById(file.inodeId, plain));
      if (now == null) {
        throw new InvalidPathHandleException("the file of " + file + " was deleted (or moved where you cannot list"
            + " it)");
      }
      if (now.getInodeId() != file.inodeId) {
        throw new FffsException(ErrorCode.UNSUPPORTED, "the NameNode answered about inode " + now.getInodeId()
            + " when asked for inode " + file.inodeId + ": it is older than this client; upgrade it to open path"
            + " handles");
      }
      String where = now.getPath();
      if (!file.mayMove && !where.equals(plain)) {
        throw new InvalidPathHandleException("the file of " + file + " was moved");
      }
      LocatedBlocksProto located = ClientErrors.translating(() -> nn().getBlockLocations(where, TimeSpec.latest(),
          0, Long.MAX_VALUE));
      if (located != null && !located.hasInodeId()) {
        throw new FffsException(ErrorCode.UNSUPPORTED, "the NameNode does not say which inode it listed the blocks"
            + " of: it is older than this client; upgrade it to open path handles");
      }
      if (located == null || located.getInodeId() != file.inodeId) {
        if (attempt < 3) {
          continue;  // moved again, or replaced, between the two calls: look for it once more
        }
        throw new InvalidPathHandleException("the file of " + file + " kept moving while it was opened");
      }
      if (!file.mayChange && located.getVersionHlc().getPacked() != file.versionHlc) {
        throw new InvalidPathHandleException("the file of " + file + " was changed at "
            + HlcTimestamp.fromProto(located.getVersionHlc()));
      }
      Path shown = qualify(new Path(where));
      statistics.incrementReadOps(1);
      return stream(FileLayout.resolve(shown.toString(), located, TimeSpec.latest(), client.data()), where,
          TimeSpec.latest());
    }
  }

  @Override
  public FileStatus getFileStatus(Path path) throws IOException {
    TemporalPath temporal = client.temporal(qualify(path));
    return fileStatus(temporal.originalPath(), FffsClient.plain(temporal), temporal.timeSpec());
  }

  /** The status of {@code path} as it was at {@code time}. */
  public FileStatus getFileStatus(Path path, TimeSpec time) throws IOException {
    TemporalPath temporal = client.temporal(qualify(path));
    return fileStatus(TemporalPath.withTime(temporal.plainPath(), time), FffsClient.plain(temporal), time);
  }

  private FileStatus fileStatus(Path shown, String plain, TimeSpec time) throws IOException {
    statistics.incrementReadOps(1);
    FileStatusProto status = ClientErrors.translating(() -> nn().getFileInfo(plain, time));
    if (status == null) {
      throw new FileNotFoundException("NOT_FOUND: " + shown + " does not exist" + FffsClient.at(time));
    }
    return client.toFileStatus(status, shown, time);
  }

  @Override
  public FileStatus[] listStatus(Path path) throws IOException {
    TemporalPath temporal = client.temporal(qualify(path));
    return listStatus(temporal, temporal.timeSpec());
  }

  /** The entries of {@code path} as they were at {@code time}; their paths carry the time's marker. */
  public FileStatus[] listStatus(Path path, TimeSpec time) throws IOException {
    TemporalPath plain = client.temporal(qualify(path));
    return listStatus(client.temporal(TemporalPath.withTime(plain.plainPath(), time)), time);
  }

  private FileStatus[] listStatus(TemporalPath dir, TimeSpec time) throws IOException {
    String plain = FffsClient.plain(dir);
    List<FileStatus> result = new ArrayList<>();
    String after = "";
    int page = getConf().getInt(FffsClientConfigKeys.LISTING_PAGE_KEY, FffsClientConfigKeys.LISTING_PAGE_DEFAULT);
    while (true) {
      statistics.incrementReadOps(1);
      String from = after;
      GetListingResponseProto listing = ClientErrors.translating(() -> nn().getListing(plain, time, from, page));
      for (FileStatusProto entry : listing.getEntriesList()) {
        Path shown = entry.getPath().equals(plain) ? dir.originalPath() : dir.child(name(entry.getPath()));
        result.add(client.toFileStatus(entry, shown, time));
      }
      if (listing.getRemainingEntries() == 0 || listing.getEntriesCount() == 0) {
        return result.toArray(new FileStatus[0]);
      }
      after = name(listing.getEntries(listing.getEntriesCount() - 1).getPath());
    }
  }

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  @Override
  public BlockLocation[] getFileBlockLocations(FileStatus file, long start, long len) throws IOException {
    if (file == null) {
      return null;
    }
    if (start < 0 || len < 0) {
      throw new IllegalArgumentException("invalid start or len");
    }
    TemporalPath temporal = client.temporal(qualify(file.getPath()));
    if (file.isDirectory() || start >= file.getLen()) {
      return new BlockLocation[0];
    }
    FileLayout layout = client.layout(FffsClient.plain(temporal), temporal.timeSpec(), temporal.originalPath());
    List<BlockLocation> locations = new ArrayList<>();
    for (FileLayout.Block block : layout.blocks) {
      if (block.offset + block.length <= start || block.offset >= start + len) {
        continue;
      }
      String[] hosts = block.locations.stream().map(d -> d.getHost()).toArray(String[]::new);
      String[] names = block.locations.stream().map(d -> d.getHost() + ":" + d.getDataPort())
          .toArray(String[]::new);
      locations.add(new BlockLocation(names, hosts, block.offset, block.length));
    }
    return locations.toArray(new BlockLocation[0]);
  }

  @Override
  public ContentSummary getContentSummary(Path path) throws IOException {
    TemporalPath temporal = client.temporal(qualify(path));
    statistics.incrementReadOps(1);
    try {
      ContentSummaryProto summary = nn().getContentSummary(FffsClient.plain(temporal), temporal.timeSpec());
      return new ContentSummary.Builder().length(summary.getLength()).fileCount(summary.getFileCount())
          .directoryCount(summary.getDirectoryCount()).spaceConsumed(summary.getSpaceConsumed()).build();
    } catch (IOException e) {
      throw ClientErrors.translate(e);
    }
  }

  /**
   * fsck ({@code bin/fffs fsck}): every file under {@code path} (a temporal path reads the tree of that time), each
   * block with its length then and its replicas' states now.
   */
  public FsckReport fsck(Path path) throws IOException {
    TemporalPath temporal = client.temporal(qualify(path));
    statistics.incrementReadOps(1);
    try {
      return new FsckReport(FffsClient.plain(temporal), temporal.timeSpec(),
          nn().fsck(FffsClient.plain(temporal), temporal.timeSpec()));
    } catch (IOException e) {
      throw ClientErrors.translate(e);
    }
  }

  /** Every version of {@code path}, oldest first: the HLC, the marker that reads it, its length, its change. */
  public List<FileVersion> listVersions(Path path) throws IOException {
    String plain = FffsClient.plain(client.temporal(qualify(path)));
    List<FileVersion> versions = new ArrayList<>();
    try {
      for (VersionProto version : nn().listVersions(plain)) {
        versions.add(new FileVersion(HlcTimestamp.fromProto(version.getHlc()), version.getLength(),
            version.getChange(), version.hasReadableFromMicros() ? version.getReadableFromMicros() : -1));
      }
    } catch (IOException e) {
      throw ClientErrors.translate(e);
    }
    return versions;
  }

  /**
   * The writes that changed {@code path}'s bytes, stamped at system times within {@code [fromMicros, toMicros]}
   * ({@code Long.MIN_VALUE}/{@code Long.MAX_VALUE}: open ends), oldest first, from its DataNodes' block logs: each
   * packet written (with its HLC, user time, file offset and length) and each block cut. Writes garbage collection
   * dropped are left out ({@link WriteHistory#completeFromMicros}).
   */
  public WriteHistory listWrites(Path path, long fromMicros, long toMicros) throws IOException {
    statistics.incrementReadOps(1);
    return new WriteQueries(client).writes(FffsClient.plain(client.temporal(qualify(path))), fromMicros, toMicros);
  }

  /**
   * The byte ranges of file {@code path} written or cut between system times {@code from} and {@code to} (either
   * may be the latest), sorted and joined: every byte that differs between the two states lies in one of them.
   * Byte-exact where the DataNodes' logs are complete from the earlier moment on, else widened to whole pages.
   */
  public List<ByteRange> changedRanges(Path path, TimeSpec from, TimeSpec to) throws IOException {
    statistics.incrementReadOps(1);
    return new WriteQueries(client).changedRanges(FffsClient.plain(client.temporal(qualify(path))), from, to);
  }

  // ---- bounded history (docs/history.md); the calls themselves are in HistoryCalls --------------------------

  /**
   * Sets the retention rule of directory {@code dir} and the subtree below it ({@code null}: follow the parent's
   * rule again). Superuser only; a shorter rule lets garbage collection drop history for good.
   */
  public void setRetention(Path dir, RetentionRule rule) throws IOException {
    history.setRetention(dir, rule);
  }

  /** The rule that governs {@code path}, where it is set, and from when on its past is readable. */
  public RetentionStatus getRetention(Path path) throws IOException {
    return history.getRetention(path);
  }

  /**
   * Pins {@code path} at the moment its marker names (no marker: now) under {@code name}: that moment of the
   * subtree stays readable whatever the rules say, also as {@code path@pin-<name>}.
   */
  public Pin pin(Path path, String name) throws IOException {
    return history.pin(path, name);
  }

  /** Pins {@code path} as it was at {@code time} under {@code name}. */
  public Pin pin(Path path, TimeSpec time, String name) throws IOException {
    return history.pin(path, time, name);
  }

  /** Removes pin {@code name}; what only it kept goes with the next garbage-collection pass. */
  public void unpin(String name) throws IOException {
    history.unpin(name);
  }

  /** The pins on {@code path} and below it, by name. */
  public List<Pin> listPins(Path path) throws IOException {
    return history.listPins(path);
  }

  /** The pin named {@code name} ({@code NOT_FOUND} if none). */
  public Pin getPin(String name) throws IOException {
    return history.getPin(name);
  }

  /**
   * Runs a garbage-collection pass of the namespace now (superuser); returns {inodes removed, versions dropped,
   * names dropped}. The NameNode also runs one every {@code fffs.history.gc.interval}.
   */
  public long[] collectHistory() throws IOException {
    return history.collectHistory();
  }

  /**
   * What changed in the tree at {@code path} between {@code from} and {@code to} (either may be the latest time):
   * entries created, deleted, renamed and modified, sorted by path. Both moments must still be readable.
   */
  public List<HistoryDifference> diff(Path path, TimeSpec from, TimeSpec to) throws IOException {
    return history.diff(path, from, to);
  }

  /**
   * Restores {@code path} as it was at the moment its marker names to {@code dst} (null: to {@code path} itself),
   * as a new version: the DataNodes copy the blocks' states themselves, readers see the old {@code dst} or the
   * whole restored tree, and the old one stays in history. Returns {files, directories, bytes} restored.
   */
  public long[] restore(Path path, Path dst) throws IOException {
    return history.restore(path, dst);
  }

  /** Restores {@code path} as it was at {@code time} to {@code dst} (null: to itself). */
  public long[] restore(Path path, TimeSpec time, Path dst) throws IOException {
    return history.restore(path, time, dst);
  }

  /** The time {@code path}'s marker names (a pin's moment looked up); the latest time when it has none. */
  public TimeSpec timeOf(Path path) throws IOException {
    return history.timeOf(path);
  }

  /** What the live DataNodes' segment files hold, summed (per DataNode: {@code bin/fffs admin -report}). */
  public DataNodeDiskUsage dataNodeDiskUsage() throws IOException {
    GetStatsResponseProto stats = ClientErrors.translating(() -> nn().getStats());
    return new DataNodeDiskUsage(stats.getLiveDatanodes(), stats.getSegmentBytes(), stats.getLiveSegmentBytes(),
        stats.getCurrentBytes());
  }

  /** What the tree at {@code path} holds now and in the history kept of it. */
  public HistoryUsage historyUsage(Path path) throws IOException {
    return history.historyUsage(path);
  }

  /** The cluster's current time (the NameNode's HLC). */
  public HlcTimestamp currentTime() throws IOException {
    return nn().currentTime();
  }

  /**
   * Counters of this client's short-circuit reads (replicas on this host read from their DataNode's files); null
   * when {@code fffs.client.read.shortcircuit} is false.
   */
  public io.fffs.client.data.ShortCircuitStats shortCircuitStats() throws IOException {
    return client.data().shortCircuitStats();
  }

  // ---- writes ------------------------------------------------------------------------------------------------

  @Override
  public FSDataOutputStream create(Path path, FsPermission permission, boolean overwrite, int bufferSize,
      short replication, long blockSize, Progressable progress) throws IOException {
    return create(path, permission, overwrite, true, replication, blockSize);
  }

  /** Creates a file only if its parent directory exists (HDFS's {@code createNonRecursive}). */
  @Override
  public FSDataOutputStream createNonRecursive(Path path, FsPermission permission, EnumSet<CreateFlag> flags,
      int bufferSize, short replication, long blockSize, Progressable progress) throws IOException {
    return create(path, permission, flags.contains(CreateFlag.OVERWRITE), false, replication, blockSize);
  }

  private FSDataOutputStream create(Path path, FsPermission permission, boolean overwrite, boolean createParent,
      short replication, long blockSize) throws IOException {
    Path qualified = qualify(path);
    String plain = client.writable(qualified, "create");
    statistics.incrementWriteOps(1);
    FileStatusProto status = ClientErrors.translating(() -> nn().create(plain, masked(permission).toShort(),
        client.clientName(), overwrite, createParent, replication, blockSize,
        FffsClientConfigKeys.userTimePlugin(getConf())));
    return stream(plain, status, List.of(), 0, 0);
  }

  @Override
  public FSDataOutputStream append(Path path, int bufferSize, Progressable progress) throws IOException {
    return openExisting(path, true);
  }

  /** Opens an existing file for writing in place, at position 0 ({@link FffsDataOutputStream#seek} to move). */
  public FffsDataOutputStream openForWrite(Path path) throws IOException {
    return openExisting(path, false);
  }

  private FffsDataOutputStream openExisting(Path path, boolean atEnd) throws IOException {
    String plain = client.writable(qualify(path), atEnd ? "append to" : "write to");
    statistics.incrementWriteOps(1);
    OpenForWriteResponseProto open = ClientErrors.translating(() -> nn().openForWrite(plain,
        client.clientName()));
    LocatedBlocksProto blocks = open.getBlocks();
    FileLayout layout = FileLayout.resolve(plain, blocks, TimeSpec.latest(), client.data());
    return stream(plain, open.getStatus(), blocks.getBlocksList(), layout.length, atEnd ? layout.length : 0);
  }

  private FffsDataOutputStream stream(String plain, FileStatusProto status,
      List<io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto> blocks, long length,
      long position) {
    FffsOutputStream out = new FffsOutputStream(client, plain, status.getInodeId(), status.getBlockSize(),
        status.hasUserTimePlugin() ? status.getUserTimePlugin() : null, blocks, length, position,
        FffsClientConfigKeys.writePacketSize(getConf()),
        io.fffs.protocol.DataTransferConfigKeys.latencyMode(getConf()));
    client.opened(out);
    return new FffsDataOutputStream(out, statistics);
  }

  @Override
  public boolean mkdirs(Path path, FsPermission permission) throws IOException {
    String plain = client.writable(qualify(path), "create directory");
    statistics.incrementWriteOps(1);
    short masked = (permission == null ? FsPermission.getDirDefault() : permission)
        .applyUMask(FsPermission.getUMask(getConf())).toShort();
    return ClientErrors.translating(() -> nn().mkdirs(plain, masked, true));
  }

  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    String from = client.writable(qualify(src), "rename");
    String to = client.writable(qualify(dst), "rename onto");
    statistics.incrementWriteOps(1);
    return ClientErrors.translating(() -> nn().rename(from, to));
  }

  @Override
  public boolean delete(Path path, boolean recursive) throws IOException {
    String plain = client.writable(qualify(path), "delete");
    statistics.incrementWriteOps(1);
    return ClientErrors.translating(() -> nn().delete(plain, recursive));
  }

  @Override
  public void setPermission(Path path, FsPermission permission) throws IOException {
    String plain = client.writable(qualify(path), "set the permission of");
    ClientErrors.translating(() -> nn().setPermission(plain, permission.toShort()));
  }

  @Override
  public void setOwner(Path path, String owner, String group) throws IOException {
    String plain = client.writable(qualify(path), "set the owner of");
    ClientErrors.translating(() -> nn().setOwner(plain, owner, group));
  }

  @Override
  public void setTimes(Path path, long mtime, long atime) throws IOException {
    String plain = client.writable(qualify(path), "set the times of");
    ClientErrors.translating(() -> nn().setTimes(plain, mtime, atime));
  }

  @Override
  public boolean setReplication(Path path, short replication) throws IOException {
    String plain = client.writable(qualify(path), "set the replication of");
    return ClientErrors.translating(() -> nn().setReplication(plain, replication));
  }

  @Override
  public boolean truncate(Path path, long newLength) throws IOException {
    Path qualified = qualify(path);
    String plain = client.writable(qualified, "truncate");
    statistics.incrementWriteOps(1);
    FileLayout before = client.layout(plain, TimeSpec.latest(), qualified);
    TruncateResponseProto truncated = ClientErrors.translating(() -> nn().truncate(plain, newLength,
        client.clientName()));
    // The NameNode's lengths already bound every read; cutting the block too keeps the DataNode's view (block
    // reports, reads by user time, later writes) the same as the namespace's.
    FileLayout.Block last = before.blockAt(Math.max(0, newLength - 1));
    if (last != null && newLength < before.length) {
      long inBlock = newLength - last.offset;
      BlockToken token = truncated.hasCutToken() ? BlockToken.fromProto(truncated.getCutToken()) : null;
      // Every holder, not only the listed ones: a replica whose report is late holds the bytes past the cut too.
      List<DatanodeIdProto> holders = truncated.getCutLocationsCount() > 0 ? truncated.getCutLocationsList()
          : last.locations;
      FileLayout.firstLocation(plain, last.blockId, holders);  // none: NOT_FOUND, saying why
      client.data().truncate(holders, last.blockId, token, inBlock);
    }
    return true;
  }

  // ---- cluster -----------------------------------------------------------------------------------------------

  @Override
  public FsServerDefaults getServerDefaults(Path path) throws IOException {
    ServerDefaultsProto defaults = nn().getServerDefaults();
    return new FsServerDefaults(defaults.getBlockSize(), defaults.getBytesPerChecksum(),
        defaults.getWritePacketSize(), (short) defaults.getReplication(), defaults.getFileBufferSize(), false, 0,
        DataChecksum.Type.CRC32C);
  }

  @Override
  public FsStatus getStatus(Path path) throws IOException {
    GetStatsResponseProto stats = nn().getStats();
    return new FsStatus(stats.getCapacity(), stats.getUsed(), stats.getRemaining());
  }

  /**
   * Closes {@code path} now if it is open, whoever writes it, as HDFS's {@code recoverLease} does for a writer held
   * dead: the NameNode fences the writer on the DataNodes (its later writes are refused) and closes the file at the
   * length its replicas reported, keeping what the writer hflushed. True when the file is closed (also when it was);
   * false while it cannot be closed yet (a DataNode has not confirmed the fence, or another client took the file
   * over): call again. Needs write permission on the file.
   */
  @Override
  public boolean recoverLease(Path path) throws IOException {
    Path qualified = qualify(path);
    String plain = client.writable(qualified, "recover the lease of");
    statistics.incrementWriteOps(1);
    return ClientErrors.translating(() -> nn().recoverLease(plain));
  }

  /** Whether {@code path} is closed (no writer holds it), or was at the time its marker names. */
  @Override
  public boolean isFileClosed(Path path) throws IOException {
    TemporalPath temporal = client.temporal(qualify(path));
    statistics.incrementReadOps(1);
    FileStatusProto status = ClientErrors.translating(() -> nn().getFileInfo(FffsClient.plain(temporal),
        temporal.timeSpec()));
    if (status == null) {
      throw new FileNotFoundException("NOT_FOUND: File does not exist: " + temporal.originalPath()
          + FffsClient.at(temporal.timeSpec()));
    }
    if (status.getType() == FileStatusProto.FileType.IS_DIR) {
      throw new FileNotFoundException("IS_A_DIRECTORY: Path is not a file: " + temporal.originalPath()
          + " is a directory");
    }
    return !status.getUnderConstruction();
  }

  /**
   * Hadoop's safe mode on the file system, as {@code bin/fffs admin -safemode}: {@code GET} for every user;
   * {@code ENTER}, {@code LEAVE} and {@code FORCE_EXIT} (the same as {@code LEAVE}) for the superuser. Answers
   * whether safe mode is on afterwards. {@code isChecked} is not used: the call always goes to the leading NameNode.
   */
  @Override
  public boolean setSafeMode(SafeModeAction action, boolean isChecked) throws IOException {
    Boolean enter = switch (action) {
      case GET -> null;
      case ENTER -> true;
      case LEAVE, FORCE_EXIT -> false;
    };
    return ClientErrors.translating(() -> nn().setSafeMode(enter));
  }

  @Override
  public boolean hasPathCapability(Path path, String capability) throws IOException {
    switch (capability) {
      case CommonPathCapabilities.FS_APPEND:
      case CommonPathCapabilities.FS_TRUNCATE:
      case CommonPathCapabilities.FS_PERMISSIONS:
      case CommonPathCapabilities.LEASE_RECOVERABLE:
        return true;
      case CommonPathCapabilities.FS_CONCAT:
      case CommonPathCapabilities.FS_SYMLINKS:
      case CommonPathCapabilities.FS_ACLS:
      case CommonPathCapabilities.FS_XATTRS:
      case CommonPathCapabilities.FS_SNAPSHOTS:
      case CommonPathCapabilities.FS_STORAGEPOLICY:
        return false;
      default:
        return super.hasPathCapability(path, capability);
    }
  }

  /** Closes the files this instance still has open for writing (as HDFS does), then the connections. */
  @Override
  public void close() throws IOException {
    try {
      if (client != null) {
        for (FffsOutputStream stream : client.openStreams()) {
          try {
            stream.close();
          } catch (IOException e) {
            // As HDFS does: a file that cannot be closed cleanly must not keep the others open; say which.
            LOG.warn("Could not close {} while closing the file system: {}", stream.path(), e.getMessage());
          }
        }
      }
    } finally {
      try {
        super.close();
      } finally {
        if (client != null) {
          client.close();
        }
      }
    }
  }
}
