package io.fffs.datanode.server;

import io.fffs.protocol.netty.KeptBufferAllocator;
import java.util.concurrent.atomic.LongAdder;

/** Counters of the data server; all monotonic since start. */
public final class DataServerStats {
  /** WRITE requests applied to the store. */
  public final LongAdder writes = new LongAdder();
  /** Payload bytes of applied writes. */
  public final LongAdder writeBytes = new LongAdder();
  /** Of those applied or refused, the ones an idle event loop applied itself instead of the store writer. */
  public final LongAdder writesInline = new LongAdder();
  /**
   * WRITE payloads that spanned socket reads, so went to the store in pieces (into reserved arena pages, no copy of
   * their own; {@link PayloadWrite}).
   */
  public final LongAdder writePayloadsGathered = new LongAdder();
  /** Of those, the ones merged into one buffer first because the store cannot reserve pages. */
  public final LongAdder writePayloadsCopied = new LongAdder();
  /** Applied writes of a chain pipeline forwarded to the next member ({@link ChainLink}). */
  public final LongAdder writesForwarded = new LongAdder();
  /** WRITE requests refused (bad CRC, store error, unhealthy node, skewed clock, earlier failure of the stream). */
  public final LongAdder writesRefused = new LongAdder();
  /** READ requests answered with data. */
  public final LongAdder reads = new LongAdder();
  /** Payload bytes sent by reads. */
  public final LongAdder readBytes = new LongAdder();
  /** Segment-file runs of READ answers written from a mapping ({@link SegmentRunMaps}). */
  public final LongAdder readRunsMapped = new LongAdder();
  /** Of those, the ones mapped alone: not in a window their segment file keeps mapped (its tail, say). */
  public final LongAdder readRunsMappedAlone = new LongAdder();
  /** Of those, the mappings not yet unmapped (their answers are being sent): a gauge. */
  public final LongAdder readRunMappingsOpen = new LongAdder();
  /** Segment-file runs of READ answers sent with sendfile instead because they could not be mapped. */
  public final LongAdder readRunsSentWithSendfile = new LongAdder();
  /** LOCAL_READ requests answered with the locations of their bytes (short-circuit reads). */
  public final LongAdder localReads = new LongAdder();
  /** READ, BLOCK_INFO, BLOCK_CHECKSUM and SYNC requests answered with an error. */
  public final LongAdder queriesRefused = new LongAdder();
  /** Requests refused for a missing, expired, forged or mismatched block access token (also counted above). */
  public final LongAdder accessDenied = new LongAdder();
  /** Times a connection stopped being read because the write ring was full (backpressure). */
  public final LongAdder backpressurePauses = new LongAdder();
  /**
   * Socket-read buffers allocated ({@link io.fffs.protocol.netty.KeptBufferAllocator}); each is kept and reused
   * once released.
   */
  public final LongAdder receiveBuffersAllocated = new LongAdder();
  /** Socket reads that reused a kept buffer instead. */
  public final LongAdder receiveBuffersReused = new LongAdder();
  /** Connections opened since start. */
  public final LongAdder connections = new LongAdder();
}
