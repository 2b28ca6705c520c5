package io.fffs.client;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.fs.InvalidPathHandleException;
import org.apache.hadoop.fs.PathHandle;

/**
 * A handle to an FFFS file: its inode (ids are never reused), the HLC of the state its status showed, the path it
 * was shown at (with its time marker, if any) and whether its bytes and its place may change before it is opened.
 *
 * <p>Bytes, big-endian: u8 layout (1), u8 flags (1: the content may change, 2: the file may move), i64 inode id,
 * i64 version HLC (packed), then the path in UTF-8 to the end.
 */
final class FffsPathHandle implements PathHandle {
  private static final long serialVersionUID = 1L;
  private static final byte LAYOUT = 1;
  private static final int CHANGE = 1;
  private static final int MOVE = 2;
  private static final int HEADER = 2 + 8 + 8;

  final long inodeId;
  final long versionHlc;
  final String path;
  final boolean mayChange;
  final boolean mayMove;

  FffsPathHandle(long inodeId, long versionHlc, String path, boolean mayChange, boolean mayMove) {
    this.inodeId = inodeId;
    this.versionHlc = versionHlc;
    this.path = path;
    this.mayChange = mayChange;
    this.mayMove = mayMove;
  }

  /** The handle {@code handle}'s bytes describe; a handle of another file system is refused. */
  static FffsPathHandle of(PathHandle handle) throws InvalidPathHandleException {
    if (handle instanceof FffsPathHandle) {
      return (FffsPathHandle) handle;
    }
    ByteBuffer bytes = handle.bytes().duplicate();
    if (bytes.remaining() < HEADER || bytes.get(bytes.position()) != LAYOUT) {
      throw new InvalidPathHandleException("not a path handle of an fffs:// file system (" + bytes.remaining()
          + " bytes, layout " + (bytes.hasRemaining() ? bytes.get(bytes.position()) : -1) + ")");
    }
    bytes.get();
    int flags = bytes.get();
    long inodeId = bytes.getLong();
    long versionHlc = bytes.getLong();
    if (!bytes.hasRemaining()) {
      throw new InvalidPathHandleException("a path handle of an fffs:// file system without its path");
    }
    byte[] path = new byte[bytes.remaining()];
    bytes.get(path);
    return new FffsPathHandle(inodeId, versionHlc, new String(path, StandardCharsets.UTF_8),
        (flags & CHANGE) != 0, (flags & MOVE) != 0);
  }

  @Override
  public ByteBuffer bytes() {
    byte[] name = path.getBytes(StandardCharsets.UTF_8);
    ByteBuffer bytes = ByteBuffer.allocate(HEADER + name.length);
    bytes.put(LAYOUT).put((byte) ((mayChange ? CHANGE : 0) | (mayMove ? MOVE : 0))).putLong(inodeId)
        .putLong(versionHlc).put(name);
    return bytes.flip();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PathHandle && bytes().equals(((PathHandle) o).bytes());
  }

  @Override
  public int hashCode() {
    return bytes().hashCode();  // as RawPathHandle's, which may be equal to this one
  }

  @Override
  public String toString() {
    return "FffsPathHandle{inode " + inodeId + " of " + path + (mayChange ? ", may change" : "")
        + (mayMove ? ", may move" : "") + "}";
  }
}
