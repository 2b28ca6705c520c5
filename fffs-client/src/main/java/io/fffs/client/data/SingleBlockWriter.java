package io.fffs.client.data;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * {@link BlockWriter} to one DataNode that renews its token in place: its {@link PacketWriter} keeps every packet
 * until the DataNode applied it ({@link KeptPackets}), and after a refusal a writer with the fresh token, a new
 * stream, sends the rest again in order. Not thread-safe (one writer thread).
 */
final class SingleBlockWriter implements BlockWriter {
  /** Opens a writer of the block to the DataNode with the given token, keeping its packets. */
  interface Opener {
    PacketWriter open(BlockToken token) throws IOException;
  }

  private final Opener opener;
  private PacketWriter writer;
  /** Bytes applied through earlier writers (before a renewal). */
  private long appliedBefore;

  SingleBlockWriter(Opener opener, BlockToken token) throws IOException {
    this.opener = opener;
    this.writer = opener.open(token);
  }

  @Override
  public void write(long offset, ByteBuffer data) throws IOException {
    writer.write(offset, data);
  }

  @Override
  public long flush() throws IOException {
    return writer.flush();
  }

  @Override
  public long acknowledgedBytes() {
    return appliedBefore + writer.acknowledgedBytes();
  }

  @Override
  public boolean renewsInPlace() {
    return true;
  }

  @Override
  public void renewToken(BlockToken fresh) throws IOException {
    writer.settle();
    if (writer.failed() && !writer.refusedToken()) {
      writer.throwIfFailed();
    }
    PacketWriter next = opener.open(fresh);
    next.continueFrom(writer);
    // The new writer copies each packet as it sends it; only then may the old one let go of its buffers.
    for (KeptPackets.Packet packet : writer.unapplied()) {
      next.write(packet.offset(), packet.bytes());
    }
    appliedBefore += writer.acknowledgedBytes();
    PacketWriter old = writer;
    writer = next;
    try {
      old.close();
    } catch (IOException e) {
      // It reports its refusal again on closing; closing only releases its connection and buffers.
    }
  }

  @Override
  public HlcTimestamp lastEntryHlc() {
    return writer.lastEntryHlc();
  }

  @Override
  public List<DatanodeIdProto> replicas() {
    return writer.replicas();
  }

  @Override
  public void close() throws IOException {
    writer.close();
  }
}
