package io.fffs.http;

import io.fffs.client.ByteRange;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.HistoryDifference;
import io.fffs.client.errors.CodedException;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.TemporalPath;
import io.fffs.common.time.TimeSpec;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * The operations answered with JSON alone (no file bytes), each one call of the user's {@code fffs://} client.
 * Reads take the request's time (a past time is just a temporal path to the client, so listings keep the marker
 * on their entries); changes have been refused for past times before they get here.
 */
final class MetadataOps {
  private final int listBatch;

  MetadataOps(int listBatch) {
    this.listBatch = listBatch;
  }

  /** The JSON answer of {@code call}, or null for an answer with an empty body. */
  String serve(Call call, FreezeFrameFileSystem fs) throws IOException {
    Path path = call.path.path;
    switch (call.op) {
      case GETFILESTATUS:
        return WebHdfsJson.fileStatus(fs.getFileStatus(path));
      case LISTSTATUS: {
        FileStatus[] entries = fs.listStatus(path);
        return WebHdfsJson.fileStatuses(entries, isFileItself(fs, path, entries));
      }
      case LISTSTATUS_BATCH:
        return batch(fs, path, call.string("startafter"));
      case GETCONTENTSUMMARY:
        return WebHdfsJson.contentSummary(fs.getContentSummary(path));
      case GETHOMEDIRECTORY:
        return WebHdfsJson.path("/user/" + call.user);
      case GETSERVERDEFAULTS:
        return WebHdfsJson.serverDefaults(fs.getServerDefaults(path));
      case GETSTATUS:
        return WebHdfsJson.fsStatus(fs.getStatus(path));
      case GETTRASHROOT:
        // The client's home is its process user's; the request's user is the one asking.
        return WebHdfsJson.path("/user/" + call.user + "/.Trash");
      case GETFILEBLOCKLOCATIONS: {
        FileStatus status = fs.getFileStatus(path);
        long offset = call.longValue("offset", 0, 0);
        long length = call.longValue("length", Long.MAX_VALUE, 0);
        return WebHdfsJson.blockLocations(fs.getFileBlockLocations(status, offset, length));
      }
      case GETVERSIONS:
        return WebHdfsJson.versions(fs.listVersions(path),
            call.bool("writes", false) ? fs.listWrites(path, Long.MIN_VALUE, Long.MAX_VALUE) : null);
      case GETHISTORYDIFF:
        return historyDiff(call, fs);
      case MKDIRS:
        return WebHdfsJson.bool(fs.mkdirs(path, call.permission((short) 0755)));
      case RENAME:
        return WebHdfsJson.bool(fs.rename(path, destination(call)));
      case DELETE:
        return WebHdfsJson.bool(fs.delete(path, call.bool("recursive", false)));
      case TRUNCATE: {
        long newLength = call.longValue("newlength", -1, 0);
        if (newLength < 0) {
          call.required("newlength");
        }
        return WebHdfsJson.bool(fs.truncate(path, newLength));
      }
      case SETPERMISSION:
        call.required("permission");
        fs.setPermission(path, call.permission((short) 0755));
        return null;
      case SETOWNER: {
        String owner = call.string("owner");
        String group = call.string("group");
        if ((owner == null || owner.isEmpty()) && (group == null || group.isEmpty())) {
          throw new FffsException(ErrorCode.INVALID_ARGUMENT, "SETOWNER needs \"owner\" or \"group\"");
        }
        fs.setOwner(path, emptyToNull(owner), emptyToNull(group));
        return null;
      }
      case SETTIMES:
        fs.setTimes(path, call.longValue("modificationtime", -1, -1), call.longValue("accesstime", -1, -1));
        return null;
      case SETREPLICATION:
        return WebHdfsJson.bool(fs.setReplication(path, call.replication(fs.getDefaultReplication(path))));
      default:
        throw new FffsException(ErrorCode.INTERNAL, call.op + " is not a metadata operation");
    }
  }

  /** The differences between the request's time and {@code to=}, each time's pin looked up as the CLI does. */
  private static String historyDiff(Call call, FreezeFrameFileSystem fs) throws IOException {
    String to = call.string("to");
    TimeSpec toTime = to == null || to.isEmpty() ? TimeSpec.latest() : TimeSpec.parse(to);
    TimeSpec from = fs.timeOf(call.path.path);
    TimeSpec until = toTime.isLatest() ? toTime : fs.timeOf(TemporalPath.withTime(call.path.plain, toTime));
    List<HistoryDifference> differences = fs.diff(call.path.plain, from, until);
    Map<HistoryDifference, List<ByteRange>> ranges = new HashMap<>();
    if (call.bool("ranges", false)) {
      for (HistoryDifference difference : differences) {
        if (difference.kind() == HistoryDifference.Kind.MODIFIED) {
          try {
            ranges.put(difference, fs.changedRanges(new Path(difference.path()), from, until));
          } catch (IOException e) {
            if (!(e instanceof CodedException) || ((CodedException) e).code() != ErrorCode.IS_A_DIRECTORY) {
              throw e;
            }
          }
        }
      }
    }
    return WebHdfsJson.historyDiff(from, until, differences, ranges);
  }

  /** Whether a listing of {@code path} is the file itself rather than a directory's entries. */
  private static boolean isFileItself(FreezeFrameFileSystem fs, Path path, FileStatus[] entries) {
    return entries.length == 1 && !entries[0].isDirectory() && entries[0].getPath().equals(fs.makeQualified(path));
  }

  private String batch(FreezeFrameFileSystem fs, Path path, String startAfter) throws IOException {
    FileStatus[] entries = fs.listStatus(path);
    int from = 0;
    if (startAfter != null && !startAfter.isEmpty()) {
      String[] names = Arrays.stream(entries).map(e -> e.getPath().getName()).toArray(String[]::new);
      int found = Arrays.binarySearch(names, startAfter);
      from = found >= 0 ? found + 1 : -found - 1;
    }
    int to = (int) Math.min(entries.length, (long) from + listBatch);
    return WebHdfsJson.directoryListing(entries, from, to, entries.length - to, isFileItself(fs, path, entries));
  }

  private static Path destination(Call call) throws IOException {
    String destination = call.required("destination");
    if (!destination.startsWith("/")) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "Invalid value for webhdfs parameter \"destination\": "
          + Printable.of(destination, 200) + " is not an absolute path");
    }
    try {
      return RequestPath.parse(RequestPath.PREFIX + RequestPath.encode(destination), null).path;
    } catch (FffsException e) {
      if (e.code() == ErrorCode.NOT_FOUND) {
        throw new FileNotFoundException(e.getMessage());
      }
      throw e;
    }
  }

  private static String emptyToNull(String value) {
    return value == null || value.isEmpty() ? null : value;
  }
}
