package io.fffs.client;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * A {@link FileStatus} that also names the inode it shows (ids are never reused) and the HLC of the state shown,
 * which a {@link org.apache.hadoop.fs.PathHandle} holds on to ({@link FffsPathHandle}). Equal, as every status, to
 * any status of the same path.
 */
public final class FffsFileStatus extends FileStatus {
  private static final long serialVersionUID = 1L;

  private final long inodeId;
  private final long versionHlc;

  FffsFileStatus(long length, boolean directory, int replication, long blockSize, long modificationTime,
      long accessTime, FsPermission permission, String owner, String group, Path path, long inodeId,
      long versionHlc) {
    super(length, directory, replication, blockSize, modificationTime, accessTime, permission, owner, group, path);
    this.inodeId = inodeId;
    this.versionHlc = versionHlc;
  }

  /** The inode shown: the same file wherever it is renamed to, never another one. */
  public long inodeId() {
    return inodeId;
  }

  /** The packed HLC of the state shown; a later change of the file gives a later one. */
  public long versionHlc() {
    return versionHlc;
  }

  @Override
  public boolean equals(Object o) {
    return super.equals(o);
  }

  @Override
  public int hashCode() {
    return super.hashCode();
  }
}
