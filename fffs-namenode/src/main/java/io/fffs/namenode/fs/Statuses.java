package io.fffs.namenode.fs;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.namenode.blocks.DatanodeManager;
import io.fffs.namenode.namespace.Inode;
import io.fffs.namenode.namespace.InodeState;

/** Builds the wire views of namespace states. */
final class Statuses {
  private Statuses() {}

  static FileStatusProto fileStatus(String path, Inode inode, InodeState state, long versionHlc) {
    FileStatusProto.Builder status = FileStatusProto.newBuilder()
        .setType(state.isDirectory() ? FileStatusProto.FileType.IS_DIR : FileStatusProto.FileType.IS_FILE)
        .setPath(path)
        .setLength(state.isDirectory() ? 0 : state.length())
        .setPermission(state.permission() & 07777)
        .setOwner(state.owner())
        .setGroup(state.group())
        .setModificationTime(state.mtime())
        .setAccessTime(state.atime())
        .setInodeId(inode.id())
        .setVersionHlc(HlcTimestamp.valueOf(versionHlc).toProto())
        .setUnderConstruction(state.isUnderConstruction());
    if (!state.isDirectory()) {
      status.setReplication(state.replication()).setBlockSize(state.blockSize());
      if (state.userTimePlugin() != null) {
        status.setUserTimePlugin(state.userTimePlugin());
      }
    }
    return status.build();
  }

  /** The blocks of {@code state} overlapping [offset, offset + length), with their DataNodes. */
  static LocatedBlocksProto locatedBlocks(InodeState state, long versionHlc, long offset, long length,
      DatanodeManager datanodes) {
    LocatedBlocksProto.Builder blocks = LocatedBlocksProto.newBuilder()
        .setFileLength(state.length())
        .setUnderConstruction(state.isUnderConstruction())
        .setVersionHlc(HlcTimestamp.valueOf(versionHlc).toProto());
    if (state.userTimePlugin() != null) {
      blocks.setUserTimePlugin(state.userTimePlugin());
    }
    long end = length > Long.MAX_VALUE - offset ? Long.MAX_VALUE : offset + length;
    long blockStart = 0;
    for (int i = 0; i < state.blockCount(); i++) {
      long blockLength = state.blockLength(i);
      long blockEnd = blockStart + blockLength;
      boolean last = i == state.blockCount() - 1;
      // The last block is always listed when the range reaches it: a writer may have grown it since.
      if (blockEnd > offset && blockStart < end || last && blockStart <= end) {
        boolean beingWritten = last && state.isUnderConstruction();
        blocks.addBlocks(located(state.blockId(i), blockLength, blockStart, beingWritten, datanodes));
      }
      blockStart = blockEnd;
    }
    return blocks.build();
  }

  /** A block with its current replicas: the primary first while it is being written, else rotated to spread reads. */
  static LocatedBlockProto located(long blockId, long length, long offset, boolean beingWritten,
      DatanodeManager datanodes) {
    return LocatedBlockProto.newBuilder()
        .setBlock(BlockProto.newBuilder().setBlockId(blockId).setNumBytes(length))
        .setOffset(offset)
        .addAllLocations(datanodes.locations(blockId, beingWritten))
        .build();
  }
}
