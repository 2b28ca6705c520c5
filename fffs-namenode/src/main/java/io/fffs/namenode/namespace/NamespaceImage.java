package io.fffs.namenode.namespace;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.NamenodeEditsProtos.ChildHistoryProto;
import io.fffs.common.proto.NamenodeEditsProtos.ImageHeaderProto;
import io.fffs.common.proto.NamenodeEditsProtos.InodeProto;
import io.fffs.common.proto.NamenodeEditsProtos.InodeVersionProto;
import io.fffs.common.history.MomentSet;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.HistoryProtos.PinProto;
import io.fffs.common.time.HlcTimestamp;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * A checkpoint: the whole versioned namespace in one file, {@code fsimage_<lastTxid, 20 digits>}. Big-endian.
 *
 * <pre>
 *   0        8           12
 *  +--------+-----------+------------------------------------------------------------+
 *  |FFFSIMG1| version=1 | records ...                                                |
 *  +--------+-----------+------------------------------------------------------------+
 *  record:  [u32 length L][u32 CRC32C of the L body bytes][body]
 *  records: one ImageHeaderProto (with the pins), then ImageHeaderProto.inodeCount InodeProto
 *           (NamenodeEdits.proto; each with its versions, names, retention rule, parent and kept moments)
 * </pre>
 *
 * Written to {@code .tmp}, forced, then renamed into place, so a named image is always whole; loading checks every
 * CRC and the record count and refuses anything else with {@code CORRUPT} (the caller then tries an older image).
 */
public final class NamespaceImage {
  static final byte[] MAGIC = {'F', 'F', 'F', 'S', 'I', 'M', 'G', '1'};
  static final int VERSION = 1;
  public static final String PREFIX = "fsimage_";

  /** What an image holds besides the namespace. */
  public static final class Loaded {
    public final Namespace namespace;
    public final long lastTxid;
    public final HlcTimestamp lastHlc;

    Loaded(Namespace namespace, long lastTxid, HlcTimestamp lastHlc) {
      this.namespace = namespace;
      this.lastTxid = lastTxid;
      this.lastHlc = lastHlc;
    }
  }

  private NamespaceImage() {}

  public static String fileName(long lastTxid) {
    return String.format("%s%020d", PREFIX, lastTxid);
  }

  /** The txid an image file name stands for, or -1. */
  public static long txidOf(Path file) {
    String name = file.getFileName().toString();
    if (!name.startsWith(PREFIX) || name.length() != PREFIX.length() + 20) {
      return -1;
    }
    try {
      return Long.parseLong(name.substring(PREFIX.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Writes {@code namespace} as of {@code lastTxid} into {@code dir}; returns the image file. */
  public static Path save(Namespace namespace, long lastTxid, HlcTimestamp lastHlc, Path dir) throws IOException {
    Path target = dir.resolve(fileName(lastTxid));
    saveAs(namespace, lastTxid, lastHlc, target);
    return target;
  }

  /** Writes {@code namespace} as of {@code lastTxid} to the file {@code target} (a Raft snapshot's name). */
  public static void saveAs(Namespace namespace, long lastTxid, HlcTimestamp lastHlc, Path target)
      throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path tmp = dir.resolve(target.getFileName() + ".tmp");
    try (FileOutputStream file = new FileOutputStream(tmp.toFile());
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(file, 1 << 20))) {
      out.write(MAGIC);
      out.writeInt(VERSION);
      ImageHeaderProto.Builder header = ImageHeaderProto.newBuilder()
          .setLastTxid(lastTxid)
          .setLastHlc(lastHlc.packed())
          .setNextInodeId(namespace.nextInodeId())
          .setNextBlockId(namespace.nextBlockId())
          .setClusterId(namespace.clusterId())
          .setInodeCount(namespace.inodeCount())
          .setLastGcHlc(namespace.lastGcHlc());
      namespace.pins().values().forEach(pin -> header.addPins(pin.toProto()));
      header.addAllExpectedLastEntries(namespace.lastEntries().all());
      header.addAllDecommissioned(namespace.decommissioned());
      header.addAllDelegationKeys(namespace.delegation().keys())
          .addAllDelegationTokens(namespace.delegation().tokens());
      if (namespace.delegation().blockKeys() != null) {
        header.setBlockKeys(namespace.delegation().blockKeys());
      }
      writeRecord(out, header.build().toByteArray());
      for (Inode inode : namespace.inodes()) {
        writeRecord(out, toProto(inode).toByteArray());
      }
      out.flush();
      file.getFD().sync();
    }
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    io.fffs.namenode.edits.EditLog.forceDirectory(dir);
  }

  /** Reads an image; {@code CORRUPT} naming the file and offset if any part of it is damaged. */
  public static Loaded load(Path file) throws IOException {
    try (InputStream raw = Files.newInputStream(file);
        CountingInput counting = new CountingInput(new BufferedInputStream(raw, 1 << 20));
        DataInputStream in = new DataInputStream(counting)) {
      byte[] magic = new byte[MAGIC.length];
      in.readFully(magic);
      if (!Arrays.equals(magic, MAGIC) || in.readInt() != VERSION) {
        throw corrupt(file, 0, "not an FFFS image (version " + VERSION + ")");
      }
      ImageHeaderProto header = ImageHeaderProto.parseFrom(readRecord(in, counting, file));
      Namespace namespace = Namespace.empty(header.getClusterId());
      boolean parentsKnown = true;
      for (long i = 0; i < header.getInodeCount(); i++) {
        parentsKnown &= fromProto(namespace, InodeProto.parseFrom(readRecord(in, counting, file)));
      }
      if (!parentsKnown) {
        findParents(namespace);
      }
      for (PinProto pin : header.getPinsList()) {
        namespace.addPin(Pin.fromProto(pin));
      }
      namespace.setLastGcHlc(header.getLastGcHlc());
      namespace.lastEntries().raise(header.getExpectedLastEntriesList());
      namespace.setDecommissioned(header.getDecommissionedList());
      header.getDelegationKeysList().forEach(namespace.delegation()::apply);
      header.getDelegationTokensList().forEach(namespace.delegation()::apply);
      if (header.hasBlockKeys()) {
        namespace.delegation().apply(header.getBlockKeys());
      }
      if (in.read() != -1) {
        throw corrupt(file, counting.count, "bytes after the last inode record");
      }
      if (namespace.root() == null) {
        throw corrupt(file, counting.count, "the image has no root directory");
      }
      namespace.setCounters(header.getNextInodeId(), header.getNextBlockId());
      return new Loaded(namespace, header.getLastTxid(), HlcTimestamp.valueOf(header.getLastHlc()));
    } catch (EOFException e) {
      throw corrupt(file, Files.size(file), "the file ends inside a record");
    }
  }

  private static void writeRecord(DataOutputStream out, byte[] body) throws IOException {
    CRC32C crc = new CRC32C();
    crc.update(body);
    out.writeInt(body.length);
    out.writeInt((int) crc.getValue());
    out.write(body);
  }

  private static byte[] readRecord(DataInputStream in, CountingInput counting, Path file) throws IOException {
    long offset = counting.count;
    int length = in.readInt();
    int expected = in.readInt();
    if (length < 0 || length > (256 << 20)) {
      throw corrupt(file, offset, "impossible record length " + length);
    }
    byte[] body = new byte[length];
    in.readFully(body);
    CRC32C crc = new CRC32C();
    crc.update(body);
    if ((int) crc.getValue() != expected) {
      throw corrupt(file, offset, "a record fails its CRC32C");
    }
    return body;
  }

  private static InodeProto toProto(Inode inode) {
    InodeProto.Builder proto = InodeProto.newBuilder().setId(inode.id());
    VersionChain<InodeState> states = inode.states();
    for (int i = 0; i < states.size(); i++) {
      InodeState s = states.value(i);
      InodeVersionProto.Builder version = InodeVersionProto.newBuilder()
          .setHlc(states.hlc(i)).setDirectory(s.directory).setPermission(s.permission).setOwner(s.owner)
          .setGroup(s.group).setMtime(s.mtime).setAtime(s.atime).setReplication(s.replication)
          .setBlockSize(s.blockSize).setChange(s.change);
      if (s.userTimePlugin != null) {
        version.setUserTimePlugin(s.userTimePlugin);
      }
      if (s.leaseHolder != null) {
        version.setLeaseHolder(s.leaseHolder);
      }
      if (s.retention != null) {
        version.setRetention(s.retention.toProto());
      }
      for (int b = 0; b < s.blockIds.length; b++) {
        version.addBlockIds(s.blockIds[b]).addBlockLengths(s.blockLengths[b]);
      }
      proto.addVersions(version);
    }
    for (Map.Entry<String, ChildHistory> child : inode.children().entrySet()) {
      ChildHistory history = child.getValue();
      ChildHistoryProto.Builder entry = ChildHistoryProto.newBuilder().setName(child.getKey());
      for (int i = 0; i < history.size(); i++) {
        entry.addHlcs(history.hlc(i)).addInodeIds(history.inodeId(i));
      }
      proto.addChildren(entry);
    }
    proto.setParentId(inode.parentId());
    if (inode.writerEpoch() != 0) {
      proto.setWriterEpoch(inode.writerEpoch());
    }
    if (inode.kept() != null) {
      proto.setKept(inode.kept().toProto());
    }
    if (inode.keptNames() != null) {
      proto.setKeptNames(inode.keptNames().toProto());
    }
    return proto.build();
  }

  /** Adds the inode; returns whether the image knew its parent (images before bounded history did not). */
  private static boolean fromProto(Namespace namespace, InodeProto proto) {
    boolean directory = proto.getVersionsCount() > 0 && proto.getVersions(0).getDirectory();
    Inode inode = namespace.newInode(proto.getId(), directory);
    for (InodeVersionProto v : proto.getVersionsList()) {
      long[] ids = v.getBlockIdsList().stream().mapToLong(Long::longValue).toArray();
      long[] lengths = v.getBlockLengthsList().stream().mapToLong(Long::longValue).toArray();
      inode.states().add(v.getHlc(), new InodeState(v.getDirectory(), (short) v.getPermission(), v.getOwner(),
          v.getGroup(), v.getMtime(), v.getAtime(), (short) v.getReplication(), v.getBlockSize(),
          v.hasUserTimePlugin() ? v.getUserTimePlugin() : null, ids, lengths,
          v.hasLeaseHolder() ? v.getLeaseHolder() : null, v.getChange().intern(),
          v.hasRetention() ? RetentionRule.fromProto(v.getRetention()) : null));
    }
    for (ChildHistoryProto child : proto.getChildrenList()) {
      ChildHistory history = inode.childHistory(child.getName());
      for (int i = 0; i < child.getHlcsCount(); i++) {
        history.add(child.getHlcs(i), child.getInodeIds(i));
      }
    }
    if (proto.hasKept()) {
      inode.setKept(MomentSet.fromProto(proto.getKept()));
    }
    if (proto.hasKeptNames()) {
      inode.setKeptNames(MomentSet.fromProto(proto.getKeptNames()));
    }
    inode.setParentId(proto.getParentId());
    inode.raiseWriterEpoch(proto.getWriterEpoch());
    return proto.hasParentId();
  }

  /** Sets each inode's parent to the directory that bound it last (what the applier would have recorded). */
  private static void findParents(Namespace namespace) {
    java.util.Map<Long, Long> latestLink = new java.util.HashMap<>();
    for (Inode directory : namespace.inodes()) {
      for (ChildHistory history : directory.children().values()) {
        for (int i = 0; i < history.size(); i++) {
          long id = history.inodeId(i);
          Inode child = id == Namespace.TOMBSTONE ? null : namespace.inode(id);
          if (child != null && history.hlc(i) >= latestLink.getOrDefault(id, -1L)) {
            latestLink.put(id, history.hlc(i));
            child.setParentId(directory.id());
          }
        }
      }
    }
  }

  private static FffsException corrupt(Path file, long offset, String what) {
    return new FffsException(ErrorCode.CORRUPT, "image " + file + " is damaged at offset " + offset + ": " + what);
  }

  /** Counts bytes read, so errors can name an offset. */
  private static final class CountingInput extends java.io.FilterInputStream {
    long count;

    CountingInput(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count++;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        count += n;
      }
      return n;
    }
  }
}
