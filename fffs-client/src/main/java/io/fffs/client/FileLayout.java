package io.fffs.client;

import io.fffs.client.data.BlockInfo;
import io.fffs.client.data.DataTransferClient;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A file's blocks as of one time, with each block's offset and length as readers must see them. The NameNode knows
 * the block list and the lengths writers reported; the DataNodes know what was written when. Blocks fill in
 * order and a writer drains a block before asking for the next one, so every block but the last is full at any
 * time the NameNode lists the next one; only the last block's length — or, by user time, every block's — comes
 * from its DataNode as of the time asked.
 */
final class FileLayout {
  /** One block: where it sits in the file and where it can be read. */
  static final class Block {
    final long blockId;
    final long offset;
    final long length;
    /** Where the block can be read, as last listed by the NameNode (listed again when every one failed). */
    volatile List<DatanodeIdProto> locations;
    /** The NameNode's access token for the block (null when it issues none); renewed when it expires. */
    volatile BlockToken token;

    Block(long blockId, long offset, long length, List<DatanodeIdProto> locations, BlockToken token) {
      this.blockId = blockId;
      this.offset = offset;
      this.length = length;
      this.locations = locations;
      this.token = token;
    }
  }

  final List<Block> blocks;
  final long length;
  final TimeSpec time;
  final String path;

  private FileLayout(List<Block> blocks, long length, TimeSpec time, String path) {
    this.blocks = blocks;
    this.length = length;
    this.time = time;
    this.path = path;
  }

  static FileLayout resolve(String path, LocatedBlocksProto located, TimeSpec time, DataTransferClient data)
      throws IOException {
    List<Block> blocks = new ArrayList<>();
    long offset = 0;
    int count = located.getBlocksCount();
    for (int i = 0; i < count; i++) {
      LocatedBlockProto block = located.getBlocks(i);
      long length = block.getBlock().getNumBytes();
      boolean last = i == count - 1;
      // A closed file's lengths are final; an open one's last block may hold more than its writer reported.
      boolean ask = time.kind() == TimeSpec.Kind.USER || last && located.getUnderConstruction();
      BlockToken token = tokenOf(block);
      if (ask && last && time.kind() != TimeSpec.Kind.USER && block.getLocationsCount() == 0 && length == 0) {
        // An open file's last block that no live DataNode holds and in which no hsync was recorded (its writer
        // died before one): nothing in it was promised, so it reads as empty and the blocks before it stay readable.
        ask = false;
      }
      if (ask) {
        firstLocation(path, block);  // none: NOT_FOUND, saying why
        BlockInfo info = ReplicaFailover.run(path, block.getBlock().getBlockId(),
            ReplicaOrder.order(block.getLocationsList(), Set.of(), data::skewedAhead), new HashSet<>(),
            replica -> data.blockInfo(replica, block.getBlock().getBlockId(), token, time));
        length = info.exists() ? info.length() : 0;
      }
      blocks.add(new Block(block.getBlock().getBlockId(), offset, length, block.getLocationsList(), token));
      offset += length;
    }
    return new FileLayout(Collections.unmodifiableList(blocks), offset, time, path);
  }

  /** The block's token as the NameNode sent it, or null when it sends none. */
  static BlockToken tokenOf(LocatedBlockProto block) {
    return block.hasToken() ? BlockToken.fromProto(block.getToken()) : null;
  }

  /** Takes the fresh tokens and replica lists of {@code located} (the same file as of the same time, asked again). */
  void refresh(LocatedBlocksProto located) {
    for (LocatedBlockProto fresh : located.getBlocksList()) {
      for (Block block : blocks) {
        if (block.blockId == fresh.getBlock().getBlockId()) {
          block.token = tokenOf(fresh);
          block.locations = fresh.getLocationsList();
        }
      }
    }
  }

  static DatanodeIdProto firstLocation(String path, LocatedBlockProto block) throws FffsException {
    return firstLocation(path, block.getBlock().getBlockId(), block.getLocationsList());
  }

  static DatanodeIdProto firstLocation(String path, long blockId, List<DatanodeIdProto> locations)
      throws FffsException {
    if (locations.isEmpty()) {
      throw new FffsException(ErrorCode.NOT_FOUND, "block " + blockId + " of " + path
          + " has no live DataNode: the DataNode holding it is down or has not reported yet");
    }
    return locations.get(0);
  }

  /** The block holding byte {@code position}, or null at or past the end. */
  Block blockAt(long position) {
    if (position >= length) {
      return null;
    }
    int low = 0;
    int high = blocks.size() - 1;
    while (low < high) {
      int mid = (low + high + 1) >>> 1;
      if (blocks.get(mid).offset <= position) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    return blocks.get(low);
  }
}
