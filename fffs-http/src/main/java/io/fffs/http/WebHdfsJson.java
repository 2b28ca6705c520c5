package io.fffs.http;

import io.fffs.client.ByteRange;
import io.fffs.client.FileVersion;
import io.fffs.client.FileWrite;
import io.fffs.client.HistoryDifference;
import io.fffs.client.WriteHistory;
import io.fffs.common.time.TimeSpec;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.ContentSummary;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FsServerDefaults;
import org.apache.hadoop.fs.FsStatus;

/** The JSON bodies of WebHDFS answers, field for field as HDFS's REST API documents them. */
final class WebHdfsJson {
  private WebHdfsJson() {}

  /** {@code {"FileStatus": {...}}}; {@code pathSuffix} is empty, as for HDFS. */
  static String fileStatus(FileStatus status) {
    Json json = new Json().beginObject().beginObject("FileStatus");
    statusFields(json, status, "");
    return json.endObject().endObject().toString();
  }

  /**
   * {@code {"FileStatuses": {"FileStatus": [...]}}}; each entry's {@code pathSuffix} is its name, or empty when the
   * listing is of a file ({@code fileItself}), as in HDFS, so that clients joining directory and name get its path.
   */
  static String fileStatuses(FileStatus[] statuses, boolean fileItself) {
    Json json = new Json().beginObject().beginObject("FileStatuses");
    statusArray(json, statuses, 0, statuses.length, fileItself);
    return json.endObject().endObject().toString();
  }

  /** {@code LISTSTATUS_BATCH}'s {@code {"DirectoryListing": {...}}}: one page and how many entries follow it. */
  static String directoryListing(FileStatus[] statuses, int from, int to, int remaining, boolean fileItself) {
    Json json = new Json().beginObject().beginObject("DirectoryListing").beginObject("partialListing")
        .beginObject("FileStatuses");
    statusArray(json, statuses, from, to, fileItself);
    return json.endObject().endObject().field("remainingEntries", remaining).endObject().endObject().toString();
  }

  private static void statusArray(Json json, FileStatus[] statuses, int from, int to, boolean fileItself) {
    json.beginArray("FileStatus");
    for (int i = from; i < to; i++) {
      json.beginObject();
      statusFields(json, statuses[i], fileItself ? "" : statuses[i].getPath().getName());
      json.endObject();
    }
    json.endArray();
  }

  private static void statusFields(Json json, FileStatus status, String suffix) {
    json.field("accessTime", status.getAccessTime())
        .field("blockSize", status.getBlockSize())
        .field("group", status.getGroup())
        .field("length", status.getLen())
        .field("modificationTime", status.getModificationTime())
        .field("owner", status.getOwner())
        .field("pathSuffix", suffix)
        .field("permission", Integer.toOctalString(status.getPermission().toShort()))
        .field("replication", status.getReplication())
        .field("storagePolicy", 0)
        .field("type", status.isDirectory() ? "DIRECTORY" : "FILE");
  }

  /** {@code {"ContentSummary": {...}}}; FFFS has no quotas, so they are -1 (none). */
  static String contentSummary(ContentSummary summary) {
    return new Json().beginObject().beginObject("ContentSummary")
        .field("directoryCount", summary.getDirectoryCount())
        .field("fileCount", summary.getFileCount())
        .field("length", summary.getLength())
        .field("quota", -1)
        .field("spaceConsumed", summary.getSpaceConsumed())
        .field("spaceQuota", -1)
        .beginObject("typeQuota").endObject()
        .endObject().endObject().toString();
  }

  /** {@code {"BlockLocations": {"BlockLocation": [...]}}}, as {@code GETFILEBLOCKLOCATIONS} answers. */
  static String blockLocations(BlockLocation[] locations) throws java.io.IOException {
    Json json = new Json().beginObject().beginObject("BlockLocations").beginArray("BlockLocation");
    for (BlockLocation location : locations) {
      json.beginObject();
      stringArray(json, "cachedHosts", location.getCachedHosts());
      json.field("corrupt", location.isCorrupt());
      stringArray(json, "hosts", location.getHosts());
      json.field("length", location.getLength());
      stringArray(json, "names", location.getNames());
      json.field("offset", location.getOffset());
      stringArray(json, "storageIds", new String[0]);
      stringArray(json, "storageTypes", new String[0]);
      stringArray(json, "topologyPaths", location.getTopologyPaths());
      json.endObject();
    }
    return json.endArray().endObject().endObject().toString();
  }

  private static void stringArray(Json json, String name, String[] values) {
    json.beginArray(name);
    for (String value : values) {
      json.value(value);
    }
    json.endArray();
  }

  /**
   * FFFS's {@code GETVERSIONS}: {@code {"FileVersions": {"FileVersion": [{"hlc", "time", "marker", "length",
   * "change"}]}}}, oldest first; {@code marker} appended to the path (or given as {@code at=}) reads that version.
   */
  static String versions(List<FileVersion> versions) {
    return versions(versions, null);
  }

  /**
   * {@link #versions(List)}, and with {@code writes} (GETVERSIONS with {@code writes=true}) also
   * {@code "FileWrites": {"completeFrom", "FileWrite": [{"hlc", "time", "marker", "kind", "offset", "length",
   * "userTime"}]}}: the writes that changed the file's bytes, oldest first; {@code completeFrom} (µs, 0: always)
   * is the moment from which every write is listed.
   */
  static String versions(List<FileVersion> versions, WriteHistory writes) {
    Json json = new Json().beginObject().beginObject("FileVersions");
    if (writes != null) {
      json.beginObject("FileWrites").field("completeFrom", writes.completeFromMicros()).beginArray("FileWrite");
      for (FileWrite write : writes.writes()) {
        json.beginObject()
            .field("hlc", write.hlc().toString())
            .field("time", write.hlc().physicalMicros() / 1000)
            .field("marker", write.marker())
            .field("kind", write.kind().name())
            .field("offset", write.offset())
            .field("length", write.length())
            .field("userTime", write.userTime())
            .endObject();
      }
      json.endArray().endObject();
    }
    json.beginArray("FileVersion");
    for (FileVersion version : versions) {
      json.beginObject()
          .field("hlc", version.hlc().toString())
          .field("time", version.time().micros() / 1000)
          .field("marker", version.marker())
          .field("length", version.length())
          .field("change", version.change())
          .endObject();
    }
    return json.endArray().endObject().endObject().toString();
  }

  /**
   * FFFS's {@code GETHISTORYDIFF}: {@code {"HistoryDiff": {"from", "to", "DiffEntry": [{"kind", "path", "target",
   * "lengthBefore", "lengthAfter"}]}}}, sorted by path; {@code kind} is CREATED, DELETED, RENAMED or MODIFIED, and
   * a length is -1 where the entry did not exist.
   */
  static String historyDiff(TimeSpec from, TimeSpec to, List<HistoryDifference> differences) {
    return historyDiff(from, to, differences, Map.of());
  }

  /**
   * {@link #historyDiff(TimeSpec, TimeSpec, List)}, and for each modified file of {@code ranges} (GETHISTORYDIFF
   * with {@code ranges=true}) {@code "ranges": [{"offset", "length"}]}: the bytes written or cut between the two.
   */
  static String historyDiff(TimeSpec from, TimeSpec to, List<HistoryDifference> differences,
      Map<HistoryDifference, List<ByteRange>> ranges) {
    Json json = new Json().beginObject().beginObject("HistoryDiff")
        .field("from", from.toString())
        .field("to", to.toString())
        .beginArray("DiffEntry");
    for (HistoryDifference difference : differences) {
      json.beginObject()
          .field("kind", difference.kind().name())
          .field("path", difference.path())
          .field("target", difference.target())
          .field("lengthBefore", difference.lengthBefore())
          .field("lengthAfter", difference.lengthAfter());
      List<ByteRange> changed = ranges.get(difference);
      if (changed != null) {
        json.beginArray("ranges");
        for (ByteRange range : changed) {
          json.beginObject().field("offset", range.offset()).field("length", range.length()).endObject();
        }
        json.endArray();
      }
      json.endObject();
    }
    return json.endArray().endObject().endObject().toString();
  }

  /** {@code GETSERVERDEFAULTS}: {@code {"FsServerDefaults": {...}}} as WebHDFS has it. */
  static String serverDefaults(FsServerDefaults defaults) {
    return new Json().beginObject().beginObject("FsServerDefaults")
        .field("blockSize", defaults.getBlockSize())
        .field("bytesPerChecksum", defaults.getBytesPerChecksum())
        .field("writePacketSize", defaults.getWritePacketSize())
        .field("replication", defaults.getReplication())
        .field("fileBufferSize", defaults.getFileBufferSize())
        .field("encryptDataTransfer", defaults.getEncryptDataTransfer())
        .field("trashInterval", defaults.getTrashInterval())
        .field("checksumType", defaults.getChecksumType().id)
        .field("keyProviderUri", defaults.getKeyProviderUri() == null ? "" : defaults.getKeyProviderUri())
        .field("defaultStoragePolicyId", defaults.getDefaultStoragePolicyId())
        .endObject().endObject().toString();
  }

  /** {@code GETSTATUS}: {@code {"FsStatus": {"capacity", "used", "remaining"}}}. */
  static String fsStatus(FsStatus status) {
    return new Json().beginObject().beginObject("FsStatus")
        .field("capacity", status.getCapacity())
        .field("used", status.getUsed())
        .field("remaining", status.getRemaining())
        .endObject().endObject().toString();
  }

  static String bool(boolean value) {
    return new Json().beginObject().field("boolean", value).endObject().toString();
  }

  static String path(String path) {
    return new Json().beginObject().field("Path", path).endObject().toString();
  }

  /** {@code noredirect=true}'s answer: the URL the client sends the data request to. */
  static String location(String url) {
    return new Json().beginObject().field("Location", url).endObject().toString();
  }
}
