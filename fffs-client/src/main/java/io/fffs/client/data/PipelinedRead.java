package io.fffs.client.data;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.ReadResponseProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import io.fffs.protocol.transport.DataChannel;
import io.fffs.protocol.transport.ReadAnswer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * One block read into the caller's buffer over a {@link DataChannel}: requests of {@code fffs.client.read.request-size}
 * (at most the channel's largest), up to {@code fffs.client.read.requests-in-flight} outstanding (fewer while the
 * transport has no room for more answers), consumed in order: each answer's chunk CRCs are checked and its bytes
 * copied into the buffer in one pass over the pieces they arrived in. The first answer shorter than asked ends the
 * read (the block ends there as of the time read); answers to requests sent beyond it are awaited and dropped, an
 * error among them too, so the channel goes back clean and a pooled connection is reused at once (after a failure
 * they are abandoned instead). At {@code latest} the requests may see different states if the block is written meanwhile (at a system
 * time they cannot).
 */
final class PipelinedRead {
  private final DataChannel channel;
  private final DatanodeIdProto datanode;
  private final DataNodeClocks clocks;
  private final int requestSize;
  private final int inFlightMax;

  PipelinedRead(DataChannel channel, DatanodeIdProto datanode, DataNodeClocks clocks, int requestSize,
      int inFlightMax) {
    this.channel = channel;
    this.datanode = datanode;
    this.clocks = clocks;
    this.requestSize = Math.min(requestSize, channel.maxRead());
    this.inFlightMax = inFlightMax;
  }

  /** One READ on the wire: block offset, bytes asked, and its answer to come. */
  record Pending(long at, int asked, CompletableFuture<ReadAnswer> answer) {}

  ReadResult read(long blockId, BlockToken token, long offset, ByteBuffer dst, TimeSpec time) throws IOException {
    ArrayDeque<Pending> inFlight = new ArrayDeque<>();
    try {
      int wanted = dst.remaining();
      int sent = 0;
      int total = 0;
      long blockLength = -1;
      HlcTimestamp resolved = null;
      int requests = 0;
      while (true) {
        boolean sending = false;
        // At least one request, even for no bytes: its answer carries the block's length and resolved HLC.
        while ((sent < wanted || requests == 0) && inFlight.size() < inFlightMax) {
          int asked = Math.min(wanted - sent, requestSize);
          long at = offset + sent;
          RequestHeaderProto.Builder request =
              RequestHeaders.of(token, blockId, at, asked, time, clocks.clock().last());
          CompletableFuture<ReadAnswer> answer = channel.read(request, asked, inFlight.isEmpty(), false);
          if (answer == null) {
            break;  // no room for another answer now: consume one first
          }
          inFlight.add(new Pending(at, asked, answer));
          requests++;
          sent += asked;
          sending = true;
        }
        if (sending) {
          channel.flush();
        }
        Pending next = inFlight.poll();
        if (next == null) {
          return new ReadResult(total, Math.max(blockLength, 0), resolved);
        }
        ReadAnswer answer = channel.await(next.answer());
        try {
          if (answer.header().hasError() && resolved != null && next.at() >= blockLength) {
            clocks.observeRead(datanode, HlcTimestamp.fromProto(answer.header().getHlc()));
            drain(inFlight);  // sent ahead past the block's end as of then
            return new ReadResult(total, blockLength, resolved);
          }
          ReadResponseProto response = checked(answer, blockId, next);
          ReadChecks.verifyInto(answer.payload(), answer.length(), response, dst, blockId, next.at(),
              channel.peer());
          if (resolved == null) {
            resolved = HlcTimestamp.fromProto(response.getResolvedHlc());
            blockLength = response.getBlockLength();
          }
          total += answer.length();
          if (answer.length() < next.asked()) {
            drain(inFlight);  // the block ends here as of the time read
            return new ReadResult(total, blockLength, resolved);
          }
        } finally {
          answer.release();
        }
      }
    } finally {
      for (Pending left : inFlight) {
        channel.abandon(left.answer());
      }
    }
  }

  /**
   * Waits for the answers still to come and drops them, whatever they say; the bytes read are complete either way,
   * so a channel that fails meanwhile only loses the rest (abandoned, and the broken connection is not reused).
   */
  private void drain(ArrayDeque<Pending> inFlight) {
    for (Pending left = inFlight.peek(); left != null; left = inFlight.peek()) {
      try {
        channel.await(left.answer()).release();
        inFlight.poll();
      } catch (IOException e) {
        return;  // the caller's finally abandons what is left
      }
    }
  }

  /**
   * Takes in the answer's HLC ({@link DataNodeClocks#observeRead}) and returns its read fields; throws the error it
   * carries, or {@code INTERNAL} when it holds more bytes than were asked for.
   */
  ReadResponseProto checked(ReadAnswer answer, long blockId, Pending request) throws FffsException {
    ResponseHeaderProto header = answer.header();
    clocks.observeRead(datanode, HlcTimestamp.fromProto(header.getHlc()));
    if (header.hasError()) {
      throw FffsException.fromProto(header.getError());
    }
    if (answer.length() > request.asked()) {
      throw new FffsException(ErrorCode.INTERNAL, channel.peer() + " sent " + answer.length() + " bytes of block "
          + blockId + " for a read of " + request.asked());
    }
    return header.getRead();
  }
}
