package io.fffs.namenode.fs;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.namenode.edits.EditLog;
import io.fffs.namenode.edits.EditLogReader;
import io.fffs.namenode.edits.EditRecord;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.namespace.NamespaceApplier;
import io.fffs.namenode.namespace.NamespaceImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NameNode's directory: {@code <name dir>/current/} holds images ({@code fsimage_<txid>},
 * {@link NamespaceImage}) and edit-log segments ({@code edits_<first txid>}, {@code EditLogFormat}). Start-up loads
 * the newest image that is whole and replays every later edit with the same code that applied it live; a torn
 * last record is cut; damage anywhere else stops start-up with {@code CORRUPT}.
 */
public final class NameStorage {
  private static final Logger LOG = LoggerFactory.getLogger(NameStorage.class);
  /** Images kept (and the edits needed to replay from the oldest of them). */
  static final int IMAGES_KEPT = 2;

  /** The namespace as loaded, with where its history ends. */
  public static final class Loaded {
    final Namespace namespace;
    final long lastTxid;
    final HlcTimestamp lastHlc;
    final long imageTxid;
    /** The IPC calls whose changes were replayed from the edit log: their retries are answered, not made again. */
    final List<LoggedCall> replayedCalls;

    Loaded(Namespace namespace, long lastTxid, HlcTimestamp lastHlc, long imageTxid) {
      this(namespace, lastTxid, lastHlc, imageTxid, List.of());
    }

    Loaded(Namespace namespace, long lastTxid, HlcTimestamp lastHlc, long imageTxid, List<LoggedCall> replayedCalls) {
      this.namespace = namespace;
      this.lastTxid = lastTxid;
      this.lastHlc = lastHlc;
      this.imageTxid = imageTxid;
      this.replayedCalls = replayedCalls;
    }
  }

  /** The Hadoop IPC client and call id of a logged change. */
  record LoggedCall(byte[] clientId, int callId) {}

  private NameStorage() {}

  static Path current(Path nameDir) {
    return nameDir.resolve("current");
  }

  /** Whether {@code nameDir} holds a formatted namespace. */
  public static boolean isFormatted(Path nameDir) throws IOException {
    return !images(current(nameDir)).isEmpty();
  }

  /** Writes an empty namespace (root only) into {@code nameDir}, which must not hold one yet. */
  public static void format(Path nameDir, String superUser, String superGroup) throws IOException {
    Path current = current(nameDir);
    Files.createDirectories(current);
    if (!images(current).isEmpty() || !EditLog.segments(current).isEmpty()) {
      throw new FffsException(ErrorCode.ALREADY_EXISTS, nameDir + " already holds a namespace; refusing to"
          + " format over it (move it aside to start afresh)");
    }
    String clusterId = "CID-" + UUID.randomUUID();
    Namespace empty = Namespace.format(clusterId, superUser, superGroup, (short) 0755);
    NamespaceImage.save(empty, 0, HlcTimestamp.ZERO, current);
    LOG.info("Formatted {} as cluster {}", nameDir, clusterId);
  }

  /** Loads the newest whole image and replays the edits after it. */
  public static Loaded load(Path nameDir) throws IOException {
    Path current = current(nameDir);
    List<Path> images = images(current);
    if (images.isEmpty()) {
      throw new FffsException(ErrorCode.NOT_FOUND, nameDir + " holds no namespace image; format it first");
    }
    NamespaceImage.Loaded image = null;
    FffsException lastDamage = null;
    for (int i = images.size() - 1; i >= 0 && image == null; i--) {
      try {
        image = NamespaceImage.load(images.get(i));
      } catch (FffsException damaged) {
        LOG.error("Image {} is damaged; trying an older one: {}", images.get(i), damaged.getMessage());
        lastDamage = damaged;
      }
    }
    if (image == null) {
      throw lastDamage;
    }
    return replay(current, image);
  }

  private static Loaded replay(Path current, NamespaceImage.Loaded image) throws IOException {
    NamespaceApplier applier = new NamespaceApplier(image.namespace);
    long[] last = {image.lastTxid};
    HlcTimestamp[] lastHlc = {image.lastHlc};
    List<LoggedCall> calls = new ArrayList<>();
    List<Path> segments = EditLog.segments(current);
    for (int i = 0; i < segments.size(); i++) {
      Path segment = segments.get(i);
      boolean newest = i == segments.size() - 1;
      if (!newest && EditLog.firstTxid(segments.get(i + 1)) <= last[0] + 1) {
        continue;  // wholly covered by the image or already replayed
      }
      if (EditLog.firstTxid(segment) > last[0] + 1) {
        throw new FffsException(ErrorCode.CORRUPT, "edits " + (last[0] + 1) + " to "
            + (EditLog.firstTxid(segment) - 1) + " are missing before " + segment
            + "; the namespace cannot be rebuilt past txid " + last[0]);
      }
      long validEnd;
      try {
        validEnd = EditLogReader.read(segment, newest, (EditRecord record) -> {
          if (record.txid() <= last[0]) {
            return;
          }
          applier.apply(record.op(), record.hlc());
          if (record.op().hasRpcClientId()) {
            calls.add(new LoggedCall(record.op().getRpcClientId().toByteArray(), record.op().getRpcCallId()));
          }
          last[0] = record.txid();
          lastHlc[0] = record.hlc();
        });
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
      if (newest && validEnd < Files.size(segment)) {
        if (EditLogReader.zerosFrom(segment, validEnd)) {
          LOG.info("Cutting the preallocated space of {} after its last record (offset {})", segment, validEnd);
        } else {
          LOG.warn("Cutting a torn tail of {} at offset {} ({} bytes)", segment, validEnd,
              Files.size(segment) - validEnd);
        }
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
          channel.truncate(validEnd);
          channel.force(true);
        }
      }
    }
    return new Loaded(image.namespace, last[0], lastHlc[0], image.lastTxid, calls);
  }

  /** Removes images beyond the newest {@link #IMAGES_KEPT} and the edit segments no kept image needs. */
  static void purge(Path current) throws IOException {
    List<Path> images = images(current);
    if (images.size() <= IMAGES_KEPT) {
      return;
    }
    for (Path old : images.subList(0, images.size() - IMAGES_KEPT)) {
      Files.deleteIfExists(old);
    }
    long oldestKept = NamespaceImage.txidOf(images.get(images.size() - IMAGES_KEPT));
    List<Path> segments = EditLog.segments(current);
    for (int i = 0; i + 1 < segments.size(); i++) {
      // Segment i ends where segment i+1 begins; it is needed only if it holds a txid after the oldest image.
      if (EditLog.firstTxid(segments.get(i + 1)) - 1 <= oldestKept) {
        Files.deleteIfExists(segments.get(i));
      }
    }
  }

  static List<Path> images(Path current) throws IOException {
    List<Path> images = new ArrayList<>();
    if (!Files.isDirectory(current)) {
      return images;
    }
    try (var files = Files.list(current)) {
      files.filter(f -> NamespaceImage.txidOf(f) >= 0).forEach(images::add);
    }
    images.sort((a, b) -> Long.compare(NamespaceImage.txidOf(a), NamespaceImage.txidOf(b)));
    return images;
  }
}
