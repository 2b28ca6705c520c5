package io.fffs.client.rpc;

import io.fffs.common.history.RetentionRule;
import io.fffs.common.ipc.ClientNamenodeProtocolPB;
import io.fffs.common.ipc.RemoteErrors;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.*;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.HistoryProtos.PinProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.TimeSpec;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.ipc.Client;
import org.apache.hadoop.ipc.ProtobufRpcEngine2;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;

/**
 * The client's side of {@code ClientNamenodeProtocol}: typed calls over Hadoop IPC. Every request carries the
 * largest HLC this client has seen ({@link HybridLogicalClock#last()}), every response's HLC is observed (clients
 * never tick), and a server error comes back as an {@code FffsException} with its code. Paths are plain absolute
 * paths; times travel as {@link TimeSpec}s.
 */
public final class NamenodeClient implements Closeable {
  private final NamenodeProxies proxies;
  private final HybridLogicalClock clock;

  private NamenodeClient(NamenodeProxies proxies, HybridLogicalClock clock) {
    this.proxies = proxies;
    this.clock = clock;
  }

  /** Connects to the NameNode at {@code address}; {@code clock} is the client's (observed, never ticked). */
  public static NamenodeClient connect(InetSocketAddress address, Configuration conf, HybridLogicalClock clock)
      throws IOException {
    return new NamenodeClient(NamenodeProxies.single(address, conf), clock);
  }

  /**
   * Connects to the leader of highly available cluster {@code nameservice} ({@code fffs.ha.namenodes.<name>}), and
   * follows the leader from then on.
   */
  public static NamenodeClient connectHa(String nameservice, Configuration conf, HybridLogicalClock clock)
      throws IOException {
    return new NamenodeClient(NamenodeProxies.ha(nameservice, conf), clock);
  }

  private interface Rpc<T> {
    T call(HlcProto hlc) throws ServiceException;
  }

  /**
   * One call, retried when the connection broke under it (a NameNode restart leaves pooled connections that fail
   * on first use) and, in an HA cluster, on the leader when a follower refused it, with the same IPC call id: the
   * NameNodes' retry caches then answer a change already made with its answer rather than making it twice, so
   * changes are retried as safely as queries.
   */
  private <T> T call(Rpc<T> rpc, java.util.function.Function<T, HlcProto> hlcOf) throws IOException {
    int callId = Client.nextCallId();
    long start = System.nanoTime();
    for (int attempt = 0; ; attempt++) {
      try {
        Client.setCallIdAndRetryCount(callId, attempt, null);
        T response = rpc.call(clock.last().toProto());
        clock.observe(HlcTimestamp.fromProto(hlcOf.apply(response)));
        return response;
      } catch (ServiceException e) {
        IOException failure = explainAuthentication(RemoteErrors.unwrap(e));
        long waitMs = proxies.retryAfter(failure, attempt, start);
        if (waitMs < 0) {
          throw failure;
        }
        backOff(waitMs, failure);
      }
    }
  }

  private static void backOff(long waitMs, IOException failure) throws IOException {
    if (waitMs == 0) {
      return;
    }
    try {
      Thread.sleep(waitMs);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted retrying " + failure.getMessage());
    }
  }

  /**
   * Hadoop's "Client cannot authenticate via:[TOKEN, KERBEROS]" for a caller without a Kerberos ticket or a
   * delegation token, said so that the user knows what to do; other failures as they are.
   */
  private IOException explainAuthentication(IOException failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage());
      if (message.contains("Client cannot authenticate via") || message.contains("GSS initiate failed")) {
        String user;
        try {
          user = org.apache.hadoop.security.UserGroupInformation.getCurrentUser().toString();
        } catch (IOException e) {
          user = "this user";
        }
        org.apache.hadoop.security.AccessControlException explained =
            new org.apache.hadoop.security.AccessControlException("ACCESS_DENIED: the NameNode at " + proxies.describe()
                + " requires Kerberos (hadoop.security.authentication=kerberos), and " + user + " has neither a"
                + " Kerberos ticket nor a delegation token for it: run kinit, or log in from a keytab"
                + " (UserGroupInformation.loginUserFromKeytab), then try again (" + t.getMessage() + ")");
        explained.initCause(failure);
        return explained;
      }
    }
    return failure;
  }

  private interface PastRpc<T> {
    T call(ClientNamenodeProtocolPB namenode, HlcProto hlc) throws ServiceException;
  }

  /**
   * A query of the namespace as of {@code time}. With follower reads on ({@code fffs.client.follower-reads}), a
   * past system time goes first to this client's reader, a follower that answers exactly as the leader would; one
   * that has not applied that far, or does not answer, leaves the query to the leader. Every other query goes to the
   * leader.
   */
  private <T> T queryAt(TimeSpec time, PastRpc<T> rpc, java.util.function.Function<T, HlcProto> hlcOf)
      throws IOException {
    ClientNamenodeProtocolPB reader = time.kind() == TimeSpec.Kind.SYSTEM ? proxies.reader() : null;
    if (reader != null) {
      try {
        T response = rpc.call(reader, clock.last().toProto());
        clock.observe(HlcTimestamp.fromProto(hlcOf.apply(response)));
        return response;
      } catch (ServiceException e) {
        IOException failure = RemoteErrors.unwrap(e);
        boolean refused = failure instanceof io.fffs.common.error.FffsException coded
            && coded.code() == io.fffs.common.error.ErrorCode.NOT_LEADER;
        if (!refused && !isConnectionFailure(failure)) {
          throw explainAuthentication(failure);
        }
        if (!refused) {
          proxies.readerUnreachable();
        }
      }
    }
    return call(h -> rpc.call(proxies.current(), h), hlcOf);
  }

  private static boolean isConnectionFailure(IOException failure) {
    return failure instanceof java.io.EOFException || failure instanceof java.net.SocketException
        || failure instanceof java.net.SocketTimeoutException;
  }

  /** A query: {@link #call}, named apart so that the calls that change nothing read as such. */
  private <T> T query(Rpc<T> rpc, java.util.function.Function<T, HlcProto> hlcOf) throws IOException {
    return call(rpc, hlcOf);
  }

  public HybridLogicalClock clock() {
    return clock;
  }

  public boolean mkdirs(String src, int permission, boolean createParent) throws IOException {
    return call(h -> proxies.current().mkdirs(null, MkdirsRequestProto.newBuilder().setHlc(h).setSrc(src)
        .setPermission(permission).setCreateParent(createParent).build()), MkdirsResponseProto::getHlc).getResult();
  }

  public FileStatusProto create(String src, int permission, String clientName, boolean overwrite,
      boolean createParent, int replication, long blockSize, String userTimePlugin) throws IOException {
    CreateRequestProto.Builder request = CreateRequestProto.newBuilder().setSrc(src).setPermission(permission)
        .setClientName(clientName).setOverwrite(overwrite).setCreateParent(createParent)
        .setReplication(replication).setBlockSize(blockSize);
    if (userTimePlugin != null) {
      request.setUserTimePlugin(userTimePlugin);
    }
    return call(h -> proxies.current().create(null, request.setHlc(h).build()), CreateResponseProto::getHlc).getStatus();
  }

  public OpenForWriteResponseProto openForWrite(String src, String clientName) throws IOException {
    return call(h -> proxies.current().openForWrite(null, OpenForWriteRequestProto.newBuilder().setHlc(h).setSrc(src)
        .setClientName(clientName).build()), OpenForWriteResponseProto::getHlc);
  }

  public LocatedBlockProto addBlock(String src, long fileId, String clientName, BlockProto previous)
      throws IOException {
    AddBlockRequestProto.Builder request = AddBlockRequestProto.newBuilder().setSrc(src).setFileId(fileId)
        .setClientName(clientName);
    if (previous != null) {
      request.setPrevious(previous);
    }
    return call(h -> proxies.current().addBlock(null, request.setHlc(h).build()), AddBlockResponseProto::getHlc).getBlock();
  }

  /** Tells the NameNode that the replica of {@code blockId} on {@code datanodeUuid} failed its checksums. */
  public void reportBadReplica(long blockId, String datanodeUuid, String reason) throws IOException {
    query(h -> proxies.current().reportBadReplica(null, ReportBadReplicaRequestProto.newBuilder().setHlc(h).setBlockId(blockId)
        .setDatanodeUuid(datanodeUuid).setReason(reason).build()), ReportBadReplicaResponseProto::getHlc);
  }

  /** fsck: the files under {@code path} as of {@code time}, each block with its replicas' states now. */
  public java.util.List<FsckFileProto> fsck(String path, TimeSpec time) throws IOException {
    return query(h -> proxies.current().fsck(null, FsckRequestProto.newBuilder().setHlc(h).setPath(path)
        .setTime(time.toProto()).build()), FsckResponseProto::getHlc).getFilesList();
  }

  /** A DataNode to replace {@code excludedUuids} (failed) in the pipeline of the file's last block. */
  public DatanodeIdProto getAdditionalDatanode(String src, long fileId, String clientName, long blockId,
      java.util.Collection<String> excludedUuids) throws IOException {
    return call(h -> proxies.current().getAdditionalDatanode(null, GetAdditionalDatanodeRequestProto.newBuilder().setHlc(h)
        .setSrc(src).setFileId(fileId).setClientName(clientName).setBlockId(blockId)
        .addAllExcludedUuids(excludedUuids).build()), GetAdditionalDatanodeResponseProto::getHlc).getDatanode();
  }

  public void abandonBlock(String src, long fileId, String clientName, BlockProto block) throws IOException {
    call(h -> proxies.current().abandonBlock(null, AbandonBlockRequestProto.newBuilder().setHlc(h).setSrc(src)
        .setFileId(fileId).setClientName(clientName).setBlock(block).build()), AbandonBlockResponseProto::getHlc);
  }

  public void fsync(String src, long fileId, String clientName, BlockProto lastBlock) throws IOException {
    fsync(src, fileId, clientName, lastBlock, java.util.List.of());
  }

  /** {@code lastEntries}: the blocks written, each with its last entry and the pipeline members holding it. */
  public void fsync(String src, long fileId, String clientName, BlockProto lastBlock,
      java.util.List<io.fffs.common.proto.CommonProtos.BlockLastEntryProto> lastEntries) throws IOException {
    call(h -> proxies.current().fsync(null, FsyncRequestProto.newBuilder().setHlc(h).setSrc(src).setFileId(fileId)
        .setClientName(clientName).setLastBlock(lastBlock).addAllLastEntries(lastEntries).build()),
        FsyncResponseProto::getHlc);
  }

  public boolean complete(String src, long fileId, String clientName, BlockProto last) throws IOException {
    return complete(src, fileId, clientName, last, java.util.List.of());
  }

  /** {@code lastEntries}: as for {@link #fsync(String, long, String, BlockProto, java.util.List)}. */
  public boolean complete(String src, long fileId, String clientName, BlockProto last,
      java.util.List<io.fffs.common.proto.CommonProtos.BlockLastEntryProto> lastEntries) throws IOException {
    CompleteRequestProto.Builder request = CompleteRequestProto.newBuilder().setSrc(src).setFileId(fileId)
        .setClientName(clientName).addAllLastEntries(lastEntries);
    if (last != null) {
      request.setLast(last);
    }
    return call(h -> proxies.current().complete(null, request.setHlc(h).build()), CompleteResponseProto::getHlc).getResult();
  }

  public boolean rename(String src, String dst) throws IOException {
    return call(h -> proxies.current().rename(null, RenameRequestProto.newBuilder().setHlc(h).setSrc(src).setDst(dst).build()),
        RenameResponseProto::getHlc).getResult();
  }

  public boolean delete(String src, boolean recursive) throws IOException {
    return call(h -> proxies.current().delete(null, DeleteRequestProto.newBuilder().setHlc(h).setSrc(src)
        .setRecursive(recursive).build()), DeleteResponseProto::getHlc).getResult();
  }

  public boolean setPermission(String src, int permission) throws IOException {
    return call(h -> proxies.current().setPermission(null, SetPermissionRequestProto.newBuilder().setHlc(h).setSrc(src)
        .setPermission(permission).build()), SetAttributeResponseProto::getHlc).getResult();
  }

  public boolean setOwner(String src, String owner, String group) throws IOException {
    SetOwnerRequestProto.Builder request = SetOwnerRequestProto.newBuilder().setSrc(src);
    if (owner != null) {
      request.setUsername(owner);
    }
    if (group != null) {
      request.setGroupname(group);
    }
    return call(h -> proxies.current().setOwner(null, request.setHlc(h).build()), SetAttributeResponseProto::getHlc)
        .getResult();
  }

  public boolean setTimes(String src, long mtime, long atime) throws IOException {
    return call(h -> proxies.current().setTimes(null, SetTimesRequestProto.newBuilder().setHlc(h).setSrc(src).setMtime(mtime)
        .setAtime(atime).build()), SetAttributeResponseProto::getHlc).getResult();
  }

  public boolean setReplication(String src, int replication) throws IOException {
    return call(h -> proxies.current().setReplication(null, SetReplicationRequestProto.newBuilder().setHlc(h).setSrc(src)
        .setReplication(replication).build()), SetAttributeResponseProto::getHlc).getResult();
  }

  /** Truncates; the answer carries the WRITE token for the block the client cuts (if any is cut). */
  public TruncateResponseProto truncate(String src, long newLength, String clientName) throws IOException {
    return call(h -> proxies.current().truncate(null, TruncateRequestProto.newBuilder().setHlc(h).setSrc(src)
        .setNewLength(newLength).setClientName(clientName).build()), TruncateResponseProto::getHlc);
  }

  public void renewLease(String clientName) throws IOException {
    call(h -> proxies.current().renewLease(null, RenewLeaseRequestProto.newBuilder().setHlc(h).setClientName(clientName)
        .build()), RenewLeaseResponseProto::getHlc);
  }

  /** Closes {@code src} now if it is open, whoever writes it; whether it is closed (false: taken over meanwhile). */
  public boolean recoverLease(String src) throws IOException {
    return call(h -> proxies.current().recoverLease(null, RecoverLeaseRequestProto.newBuilder().setHlc(h).setSrc(src)
        .build()), RecoverLeaseResponseProto::getHlc).getClosed();
  }

  /** Reads safe mode ({@code enter} null), or enters or leaves it; whether it is on now. */
  public boolean setSafeMode(Boolean enter) throws IOException {
    SetSafeModeRequestProto.Builder request = SetSafeModeRequestProto.newBuilder();
    if (enter != null) {
      request.setEnter(enter);
    }
    return call(h -> proxies.current().setSafeMode(null, request.setHlc(h).build()),
        SetSafeModeResponseProto::getHlc).getOn();
  }

  /** The status at {@code time}, or null when the path did not exist then. */
  public FileStatusProto getFileInfo(String src, TimeSpec time) throws IOException {
    GetFileInfoResponseProto response = queryAt(time, (nn, h) -> nn.getFileInfo(null,
        GetFileInfoRequestProto.newBuilder().setHlc(h).setSrc(src).setTime(time.toProto()).build()),
        GetFileInfoResponseProto::getHlc);
    return response.hasStatus() ? response.getStatus() : null;
  }

  /**
   * The latest status of inode {@code inodeId}, at {@code hint} if it is linked there, else where it is linked now
   * if the caller may list that directory; null when it is linked nowhere the caller may see.
   */
  public FileStatusProto getFileInfoById(long inodeId, String hint) throws IOException {
    GetFileInfoResponseProto response = queryAt(TimeSpec.latest(), (nn, h) -> nn.getFileInfo(null,
        GetFileInfoRequestProto.newBuilder().setHlc(h).setSrc(hint).setTime(TimeSpec.latest().toProto())
            .setInodeId(inodeId).build()), GetFileInfoResponseProto::getHlc);
    return response.hasStatus() ? response.getStatus() : null;
  }

  public GetListingResponseProto getListing(String src, TimeSpec time, String startAfter, int limit)
      throws IOException {
    return queryAt(time, (nn, h) -> nn.getListing(null, GetListingRequestProto.newBuilder().setHlc(h).setSrc(src)
        .setTime(time.toProto()).setStartAfter(startAfter).setLimit(limit).build()),
        GetListingResponseProto::getHlc);
  }

  /** The blocks at {@code time}, or null when the file did not exist then. */
  public LocatedBlocksProto getBlockLocations(String src, TimeSpec time, long offset, long length)
      throws IOException {
    return getBlockLocations(src, time, offset, length, null);
  }

  /**
   * As {@link #getBlockLocations(String, TimeSpec, long, long)}; with {@code writerClientName} (the lease holder)
   * the blocks come with WRITE tokens: how a writer renews them.
   */
  public LocatedBlocksProto getBlockLocations(String src, TimeSpec time, long offset, long length,
      String writerClientName) throws IOException {
    GetBlockLocationsRequestProto.Builder request = GetBlockLocationsRequestProto.newBuilder().setSrc(src)
        .setTime(time.toProto()).setOffset(offset).setLength(length);
    if (writerClientName != null) {
      request.setWriterClientName(writerClientName);
    }
    GetBlockLocationsResponseProto response = query(h -> proxies.current().getBlockLocations(null,
        request.clone().setHlc(h).build()), GetBlockLocationsResponseProto::getHlc);
    return response.hasLocations() ? response.getLocations() : null;
  }

  public ContentSummaryProto getContentSummary(String path, TimeSpec time) throws IOException {
    return queryAt(time, (nn, h) -> nn.getContentSummary(null, GetContentSummaryRequestProto.newBuilder().setHlc(h)
        .setPath(path).setTime(time.toProto()).build()), GetContentSummaryResponseProto::getHlc).getSummary();
  }

  public List<VersionProto> listVersions(String src) throws IOException {
    return query(h -> proxies.current().listVersions(null, ListVersionsRequestProto.newBuilder().setHlc(h).setSrc(src)
        .build()), ListVersionsResponseProto::getHlc).getVersionsList();
  }

  /** The NameNode's HLC (also observed into this client's clock). */
  public HlcTimestamp currentTime() throws IOException {
    return HlcTimestamp.fromProto(query(h -> proxies.current().currentTime(null, CurrentTimeRequestProto.newBuilder().setHlc(h)
        .build()), CurrentTimeResponseProto::getHlc).getHlc());
  }

  public ServerDefaultsProto getServerDefaults() throws IOException {
    return query(h -> proxies.current().getServerDefaults(null, GetServerDefaultsRequestProto.newBuilder().setHlc(h).build()),
        GetServerDefaultsResponseProto::getHlc).getDefaults();
  }

  public GetStatsResponseProto getStats() throws IOException {
    return query(h -> proxies.current().getStats(null, GetStatsRequestProto.newBuilder().setHlc(h).build()),
        GetStatsResponseProto::getHlc);
  }

  /** Sets the retention rule of a directory; null makes it follow its parent's again. */
  public void setRetention(String src, RetentionRule rule) throws IOException {
    SetRetentionRequestProto.Builder request = SetRetentionRequestProto.newBuilder().setSrc(src);
    if (rule != null) {
      request.setRule(rule.toProto());
    }
    call(h -> proxies.current().setRetention(null, request.clone().setHlc(h).build()), SetRetentionResponseProto::getHlc);
  }

  public GetRetentionResponseProto getRetention(String src) throws IOException {
    return query(h -> proxies.current().getRetention(null, GetRetentionRequestProto.newBuilder().setHlc(h).setSrc(src).build()),
        GetRetentionResponseProto::getHlc);
  }

  public PinProto pin(String src, TimeSpec time, String name) throws IOException {
    return call(h -> proxies.current().pin(null, PinRequestProto.newBuilder().setHlc(h).setSrc(src).setTime(time.toProto())
        .setName(name).build()), PinResponseProto::getHlc).getPin();
  }

  public void unpin(String name) throws IOException {
    call(h -> proxies.current().unpin(null, UnpinRequestProto.newBuilder().setHlc(h).setName(name).build()),
        UnpinResponseProto::getHlc);
  }

  public List<PinProto> listPins(String src) throws IOException {
    return query(h -> proxies.current().listPins(null, ListPinsRequestProto.newBuilder().setHlc(h).setSrc(src).build()),
        ListPinsResponseProto::getHlc).getPinsList();
  }

  public PinProto getPin(String name) throws IOException {
    return query(h -> proxies.current().getPin(null, GetPinRequestProto.newBuilder().setHlc(h).setName(name).build()),
        GetPinResponseProto::getHlc).getPin();
  }

  public CollectHistoryResponseProto collectHistory() throws IOException {
    return call(h -> proxies.current().collectHistory(null, CollectHistoryRequestProto.newBuilder().setHlc(h).build()),
        CollectHistoryResponseProto::getHlc);
  }

  public HistoryDiffResponseProto historyDiff(String src, TimeSpec from, TimeSpec to, int limit)
      throws IOException {
    return query(h -> proxies.current().historyDiff(null, HistoryDiffRequestProto.newBuilder().setHlc(h).setSrc(src)
        .setFrom(from.toProto()).setTo(to.toProto()).setLimit(limit).build()), HistoryDiffResponseProto::getHlc);
  }

  /** Restores {@code src} as it was at {@code time} to {@code dst} (null: to itself); waits for the copies. */
  public RestoreResponseProto restore(String src, TimeSpec time, String dst) throws IOException {
    RestoreRequestProto.Builder request = RestoreRequestProto.newBuilder().setSrc(src).setTime(time.toProto());
    if (dst != null) {
      request.setDst(dst);
    }
    return call(h -> proxies.current().restore(null, request.clone().setHlc(h).build()), RestoreResponseProto::getHlc);
  }

  public HistoryUsageResponseProto historyUsage(String src) throws IOException {
    return query(h -> proxies.current().historyUsage(null, HistoryUsageRequestProto.newBuilder().setHlc(h).setSrc(src)
        .build()), HistoryUsageResponseProto::getHlc);
  }

  /** A delegation token renewable by {@code renewer}, or null when the NameNode issues none (no Kerberos). */
  public DelegationTokenProto getDelegationToken(String renewer) throws IOException {
    GetDelegationTokenResponseProto response = call(h -> proxies.current().getDelegationToken(null,
        GetDelegationTokenRequestProto.newBuilder().setHlc(h).setRenewer(renewer).build()),
        GetDelegationTokenResponseProto::getHlc);
    return response.hasToken() ? response.getToken() : null;
  }

  /** Renews {@code token}; returns its new expiry (ms since the epoch). */
  public long renewDelegationToken(DelegationTokenProto token) throws IOException {
    return call(h -> proxies.current().renewDelegationToken(null, RenewDelegationTokenRequestProto.newBuilder().setHlc(h)
        .setToken(token).build()), RenewDelegationTokenResponseProto::getHlc).getExpiryMillis();
  }

  public void cancelDelegationToken(DelegationTokenProto token) throws IOException {
    call(h -> proxies.current().cancelDelegationToken(null, CancelDelegationTokenRequestProto.newBuilder().setHlc(h)
        .setToken(token).build()), CancelDelegationTokenResponseProto::getHlc);
  }

  @Override
  public void close() {
    proxies.close();
  }
}
