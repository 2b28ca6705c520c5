package io.fffs.common.security;

import io.fffs.common.proto.DataTransferProtos.BlockAccessModeProto;

/** What a block access token lets its holder do with the block. */
public enum BlockAccessMode {
  /** READ, BLOCK_CHECKSUM; BLOCK_INFO. */
  READ(BlockAccessModeProto.BLOCK_READ),
  /** WRITE, SYNC, TRUNCATE; BLOCK_INFO (a writer must learn the length it writes at). */
  WRITE(BlockAccessModeProto.BLOCK_WRITE);

  private final BlockAccessModeProto proto;

  BlockAccessMode(BlockAccessModeProto proto) {
    this.proto = proto;
  }

  public BlockAccessModeProto toProto() {
    return proto;
  }

  public static BlockAccessMode fromProto(BlockAccessModeProto proto) {
    return proto == BlockAccessModeProto.BLOCK_WRITE ? WRITE : READ;
  }
}
