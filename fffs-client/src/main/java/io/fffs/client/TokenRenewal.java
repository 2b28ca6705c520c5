package io.fffs.client;

import io.fffs.client.data.BlockWriter;
import io.fffs.client.errors.ClientErrors;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlocksProto;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stream's WRITE tokens renewed: before they are due (the writers drained and closed, the next write opens one with
 * the fresh token), and once after a DataNode refused one anyway (its key unknown after a NameNode upgrade or
 * failover, or expired): a writer that keeps its unapplied writes itself (a replicated pipeline) carries on with the
 * fresh token ({@link BlockWriter#renewToken}), any other is replaced by a new writer sent again what its DataNode
 * did not apply, from the stream's copies ({@link UnackedWrites}). A second refusal while sending again fails the
 * write, and so does a DataNode lost meanwhile ({@code IO_ERROR}). Not thread-safe (the stream's lock).
 */
final class TokenRenewal {
  private static final Logger LOG = LoggerFactory.getLogger(TokenRenewal.class);

  /** Opens (or returns) the writer of block {@code index}, as the stream does for a write. */
  interface Opener {
    BlockWriter writerFor(int index) throws IOException;
  }

  /** Something to do again with fresh tokens. */
  interface Retry {
    void run() throws IOException;
  }

  /** The file's blocks as the NameNode locates them now, with fresh tokens (null: the file is gone). */
  interface Locator {
    LocatedBlocksProto locate() throws IOException;
  }

  private final Locator locator;
  private final String path;
  private final BlockPipelines blocks;
  private final Opener opener;
  /** True while sending again after a refused token: a second refusal fails the write. */
  private boolean resending;

  TokenRenewal(FffsClient client, String path, BlockPipelines blocks, Opener opener) {
    this(() -> ClientErrors.translating(() -> client.namenode().getBlockLocations(path, TimeSpec.latest(), 0,
        Long.MAX_VALUE, client.clientName())), path, blocks, opener);
  }

  TokenRenewal(Locator locator, String path, BlockPipelines blocks, Opener opener) {
    this.locator = locator;
    this.path = path;
    this.blocks = blocks;
    this.opener = opener;
  }

  /** Whether the stream is sending again after a refused token (nothing else is tried then: a failure fails). */
  boolean resending() {
    return resending;
  }

  /**
   * Fresh WRITE tokens for every block of the file, from the NameNode (this client holds the lease). The open
   * writers carry the old tokens, so they are drained and closed first; the next write opens one with the new token
   * over the same members ({@link PrimaryFailover#reopen}: a primary lost meanwhile is left out and replaced).
   */
  void renewTokens() throws IOException {
    try {
      for (BlockWriter writer : blocks.writers().values()) {
        writer.flush();
      }
    } catch (FffsException e) {
      resendRefused(e);  // leaves flushed writers with fresh tokens
      return;
    }
    closeWriters();
    fetchTokens();
  }

  /**
   * Closes every writer (see {@link #closeWriter}) and forgets them. One that fails does not stop the others from
   * closing (their connections go back to the pool); the first failure is thrown, the rest suppressed in it.
   */
  void closeWriters() throws IOException {
    Exception failure = null;
    try {
      for (Map.Entry<Long, BlockWriter> writer : blocks.writers().entrySet()) {
        try {
          closeWriter(writer.getKey(), writer.getValue());
          blocks.keepMembers(writer.getKey(), writer.getValue());
        } catch (IOException | RuntimeException e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
    } finally {
      blocks.clearWriters();
    }
    if (failure instanceof IOException io) {
      throw io;
    }
    if (failure != null) {
      throw (RuntimeException) failure;
    }
  }

  /**
   * Closes a writer; a refusal of its token on the way (a follower refusing to end the pipeline, say) is met once
   * with fresh tokens from the NameNode and a second close.
   */
  void closeWriter(long blockId, BlockWriter writer) throws IOException {
    try {
      writer.close();
    } catch (FffsException e) {
      if (e.code() != ErrorCode.ACCESS_DENIED || resending || !writer.renewsInPlace()) {
        throw e;
      }
      LOG.info("A DataNode refused the token of the writer of block {} of {} as it closed; asking the NameNode for"
          + " fresh tokens: {}", blockId, path, e.getMessage());
      again(e, () -> {
        fetchTokens();
        writer.renewToken(blocks.token(blockId));
        writer.close();
      });
    }
  }

  /** Runs {@code retry} once as a resend after {@code refusal}: a failure of it carries the refusal as suppressed. */
  void again(FffsException refusal, Retry retry) throws IOException {
    resending = true;
    try {
      retry.run();
    } catch (IOException again) {
      again.addSuppressed(refusal);
      throw again;
    } finally {
      resending = false;
    }
  }

  void fetchTokens() throws IOException {
    LocatedBlocksProto located = locator.locate();
    if (located == null) {
      throw new FffsException(ErrorCode.NOT_FOUND, path + " no longer exists; its writer cannot renew its tokens");
    }
    for (LocatedBlockProto block : located.getBlocksList()) {
      blocks.renewToken(block);
    }
  }

  /**
   * A DataNode refused a write with {@code ACCESS_DENIED} (the key of its token unknown to it or expired): asks the
   * NameNode for fresh tokens once; a writer that keeps its unapplied writes itself (a replicated pipeline) carries
   * on with the fresh token, any other is replaced by a new writer sent again every write its DataNode did not
   * apply, in order, from the stream's copies. Every writer is then flushed, so that a second refusal fails the
   * write here. Anything else, or a writer that cannot tell what was applied, is thrown.
   */
  void resendRefused(FffsException refusal) throws IOException {
    if (refusal.code() != ErrorCode.ACCESS_DENIED || resending) {
      throw refusal;
    }
    resending = true;
    try {
      Map<Long, List<UnackedWrites.Remainder>> resend = new HashMap<>();
      for (Map.Entry<Long, BlockWriter> entry : blocks.writers().entrySet()) {
        BlockWriter writer = entry.getValue();
        if (writer.renewsInPlace()) {
          continue;
        }
        try {
          writer.flush();  // the writers that were not refused finish what they have in flight
        } catch (FffsException e) {
          if (e.code() != ErrorCode.ACCESS_DENIED) {
            throw e;
          }
        }
        UnackedWrites copies = blocks.copies(entry.getKey());
        long acknowledged = writer.acknowledgedBytes();
        if (copies == null || acknowledged < 0) {
          throw refusal;
        }
        resend.put(entry.getKey(), copies.after(acknowledged));
      }
      LOG.info("A DataNode refused the token of a writer of {}; asking the NameNode for fresh tokens ({} writers"
          + " resume, {} unapplied writes sent again through new ones): {}", path,
          blocks.writers().size() - resend.size(), resend.values().stream().mapToInt(List::size).sum(),
          refusal.getMessage());
      fetchTokens();
      for (Map.Entry<Long, BlockWriter> entry : List.copyOf(blocks.writers().entrySet())) {
        long blockId = entry.getKey();
        BlockWriter writer = entry.getValue();
        if (writer.renewsInPlace()) {
          writer.renewToken(blocks.token(blockId));
        } else {
          try {
            writer.close();
          } catch (IOException e) {
            // A refused writer reports its refusal again on closing; closing only releases its connections.
          }
          blocks.remove(blockId);
        }
        blocks.keepMembers(blockId, writer);
      }
      for (Map.Entry<Long, List<UnackedWrites.Remainder>> blockWrites : resend.entrySet()) {
        sendAgain(blockWrites.getKey(), blockWrites.getValue());
      }
      for (BlockWriter writer : blocks.writers().values()) {
        writer.flush();
      }
    } catch (IOException e) {
      FffsException typed = e instanceof FffsException f ? f : new FffsException(ErrorCode.IO_ERROR, "a DataNode of "
          + path + " failed while the writes a refused token left unapplied were sent again; they may be lost: "
          + e.getMessage(), e);
      if (typed != refusal) {
        typed.addSuppressed(refusal);
      }
      throw typed;
    } finally {
      resending = false;
    }
  }

  /**
   * Sends {@code writes} again, in order, through a new writer of {@code blockId}; every one is among the block's
   * copies before any is sent, so that should the writer fail on one, none after it is missing from them.
   */
  private void sendAgain(long blockId, List<UnackedWrites.Remainder> writes) throws IOException {
    BlockWriter writer = opener.writerFor(blocks.index(blockId));
    UnackedWrites copies = blocks.copies(blockId);
    List<ByteBuffer> kept = new ArrayList<>(writes.size());
    long none = writer.acknowledgedBytes();
    for (UnackedWrites.Remainder write : writes) {
      kept.add(copies != null ? copies.add(write, none) : write.bytes());
    }
    for (int i = 0; i < writes.size(); i++) {
      if (copies != null) {
        writer.writeRetained(writes.get(i).offset(), kept.get(i));
      } else {
        writer.write(writes.get(i).offset(), kept.get(i));
      }
    }
  }
}
