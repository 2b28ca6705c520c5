package io.fffs.datanode.store;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.datanode.store.arena.PageArena;
import io.fffs.datanode.store.persist.SegmentPageReader;
import io.fffs.protocol.frame.ChunkChecksums;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;

/**
 * The bytes of a block range as of one log entry, as runs of contiguous bytes in memory that can be sent without a
 * copy of our own ({@link Run#bytes()}). Resident pages are runs of the arena's mapped tmpfs files; evicted pages
 * were read from the segment files when the view was made, checked against their CRC32C, and are runs of a buffer
 * the view holds ({@link Run#loaded()}), so what is sent is exactly what was checked — or, for a view made to be
 * sent ({@link BlockStore#readForSending}), evicted pages an earlier read checked are runs of their segment file
 * ({@link Run#inFile()}) with the CRCs that check computed, for the reader to check. Runs carry the CRC32Cs of
 * their 512-byte chunks where those are known ({@link Run#chunkCrcs()}).
 *
 * <p>While the view is open its resident pages cannot be evicted or reused, nor its loaded buffer given to another
 * read; <b>close it</b> (after the bytes are sent) or writers will eventually stall. The arena's channels belong to
 * the store: never close them.
 * Not thread-safe; {@link #close()} is idempotent.
 */
public final class ReadView implements AutoCloseable {
  private final long blockId;
  private final int logIndex;
  private final HlcTimestamp hlc;
  private final long blockLength;
  private final long offset;
  private final int length;
  private final List<Run> runs;
  private final PageArena.Pin pin;
  /** Gives back the buffer of the view's loaded runs and the segment files it holds (null when neither). */
  private Runnable releaseFiles;

  ReadView(long blockId, int logIndex, HlcTimestamp hlc, long blockLength, long offset, int length, List<Run> runs,
      PageArena.Pin pin, Runnable releaseFiles) {
    this.blockId = blockId;
    this.logIndex = logIndex;
    this.hlc = hlc;
    this.blockLength = blockLength;
    this.offset = offset;
    this.length = length;
    this.runs = List.copyOf(runs);
    this.pin = pin;
    this.releaseFiles = releaseFiles;
  }

  public long blockId() {
    return blockId;
  }

  /** Index of the log entry the read resolved to. */
  public int logIndex() {
    return logIndex;
  }

  /** HLC of the log entry the read resolved to. */
  public HlcTimestamp hlc() {
    return hlc;
  }

  /** The block's length as of that entry. */
  public long blockLength() {
    return blockLength;
  }

  public long offset() {
    return offset;
  }

  /** Bytes in the view: the length asked for, or less at the end of the block. */
  public int length() {
    return length;
  }

  public List<Run> runs() {
    return runs;
  }

  /** Copies the view's bytes into {@code dst} at its position (which advances by {@link #length()}). */
  public void copyTo(ByteBuffer dst) throws FffsException {
    if (dst.remaining() < length) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "the buffer has room for " + dst.remaining()
          + " bytes but the view of block " + blockId + " holds " + length);
    }
    for (Run run : runs) {
      run.copyTo(dst);
    }
  }

  /**
   * The CRC32C of each 512-byte chunk of the view's bytes (chunk 0 starting at {@link #offset()}): where the chunks
   * line up with a run's, those it carries ({@link Run#chunkCrcs()}), else computed over the bytes (pages written in
   * part, reads that do not start on a chunk boundary).
   */
  public int[] chunkCrcs() {
    ChunkChecksums sums = new ChunkChecksums(length);
    for (Run run : runs) {
      int[] known = run.chunkCrcs();
      int whole = 0;
      if (known != null && sums.atChunkBoundary()) {
        whole = run.length() / ChunkChecksums.CHUNK_BYTES;
        for (int k = 0; k < whole; k++) {
          sums.add(known[run.firstChunk() + k]);
        }
      }
      if (whole * ChunkChecksums.CHUNK_BYTES < run.length()) {
        if (run.inFile()) {
          // CRCs computed here over file bytes nobody checked would vouch for whatever the disk now holds.
          throw new IllegalStateException("a run sent from a segment file must be whole chunks with checked CRCs");
        }
        ByteBuffer bytes = run.bytes();
        sums.update(bytes.position(whole * ChunkChecksums.CHUNK_BYTES));
      }
    }
    return sums.finish();
  }

  /** The view's bytes in a new array. */
  public byte[] toBytes() throws FffsException {
    byte[] bytes = new byte[length];
    copyTo(ByteBuffer.wrap(bytes));
    return bytes;
  }

  @Override
  public void close() {
    if (pin != null) {
      pin.close();
    }
    Runnable release = releaseFiles;
    releaseFiles = null;
    if (release != null) {
      release.run();
    }
  }

  /**
   * {@code length} bytes at {@code position} of {@code channel} (a run of the arena), or at {@code position} of a
   * buffer of pages loaded from segment files and checked (channel null).
   */
  public static final class Run {
    private final FileChannel channel;
    /** The segment file of a run {@link #inFile()}, else null. */
    private final SegmentPageReader.Handle file;
    private final long position;
    private final int length;
    private final ByteBuffer mapped;
    /** When known (see {@link #chunkCrcs()}): the CRCs of its chunks from {@link #firstChunk}, else null. */
    private final int[] chunkCrcs;
    private final int firstChunk;

    Run(FileChannel channel, long position, int length, ByteBuffer mapped) {
      this(channel, null, position, length, mapped, null, 0);
    }

    /**
     * A run of arena bytes; {@code chunkCrcs} from {@code firstChunk} are the CRC32Cs of its 512-byte chunks kept
     * from the write that filled its pages ({@link io.fffs.datanode.store.arena.SlotChecksums}), or null.
     */
    static Run resident(FileChannel channel, long position, int length, ByteBuffer mapped, int[] chunkCrcs,
        int firstChunk) {
      return new Run(channel, null, position, length, mapped, chunkCrcs, firstChunk);
    }

    private Run(FileChannel channel, SegmentPageReader.Handle file, long position, int length, ByteBuffer mapped,
        int[] chunkCrcs, int firstChunk) {
      this.channel = channel;
      this.file = file;
      this.position = position;
      this.length = length;
      this.mapped = mapped;
      this.chunkCrcs = chunkCrcs;
      this.firstChunk = firstChunk;
    }

    /**
     * A run of checked bytes at {@code position} of {@code buffer}, which the view owns; {@code chunkCrcs} from
     * {@code firstChunk} are the CRC32Cs of its 512-byte chunks when it starts on one (else null).
     */
    static Run loaded(ByteBuffer buffer, int position, int length, int[] chunkCrcs, int firstChunk) {
      return new Run(null, null, position, length, buffer, chunkCrcs, firstChunk);
    }

    /**
     * A run of whole 512-byte chunks at {@code position} of a segment file, which the view holds open; {@code chunkCrcs}
     * from {@code firstChunk} are their CRC32Cs as an earlier read checked them. Send it from a mapping of the file
     * (or with {@code sendfile}): a segment file's records never change while the view holds the file.
     */
    static Run inFile(SegmentPageReader.Handle file, long position, int length, int[] chunkCrcs, int firstChunk) {
      return new Run(file.channel(), file, position, length, null, chunkCrcs, firstChunk);
    }

    /**
     * For a run {@link #inFile()}: its bytes from the mapping its segment file keeps ({@link
     * SegmentPageReader.Handle#mapped}), for a socket write while the view is open; null where there is none.
     */
    public ByteBuffer fileWindow() {
      return file == null ? null : file.mapped(position, length);
    }

    /**
     * The arena or segment file the bytes are in (null for a {@link #loaded()} run); owned by the store, never close
     * it.
     */
    public FileChannel channel() {
      return channel;
    }

    public long position() {
      return position;
    }

    public int length() {
      return length;
    }

    /** Whether the bytes are in the memory arena (else they are or were loaded from a segment file on disk). */
    public boolean inMemory() {
      return channel != null && mapped != null;
    }

    /** Whether the bytes are to be sent from their segment file ({@link #inFile}); {@link #bytes()} reads them. */
    public boolean inFile() {
      return mapped == null;
    }

    /** Whether the bytes were loaded from a segment file into the view's buffer and checked there. */
    public boolean loaded() {
      return channel == null;
    }

    /**
     * The run's bytes, read-only, without a copy: straight from the mapped arena, or the view's loaded buffer. Send
     * them with an ordinary socket write, which copies them into the kernel before it completes — not with
     * {@code sendfile}: a sent file page stays referenced by the socket until the peer reads it, and an arena slot
     * is reused once the view is closed. A run {@link #inFile()} is read from its file into a new buffer here.
     */
    public ByteBuffer bytes() {
      if (mapped == null) {
        ByteBuffer read = ByteBuffer.allocate(length);
        try {
          SegmentPageReader.readFully(channel, read, position);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot read " + length + " bytes of a segment file at offset "
              + position, e);
        }
        return read.flip().asReadOnlyBuffer();
      }
      return mapped.slice((int) position, length).asReadOnlyBuffer();
    }

    /**
     * The CRC32Cs of the run's whole 512-byte chunks, from index {@link #firstChunk()}, for a run that starts on a
     * chunk boundary of its pages: of arena pages, kept from the write that filled them; of a loaded run, computed by
     * the check of its pages. Null when they must be computed.
     */
    public int[] chunkCrcs() {
      return chunkCrcs;
    }

    public int firstChunk() {
      return firstChunk;
    }

    /** Whether {@code next} starts where this run ends, in the same file or buffer (and the same loaded piece). */
    boolean continuedBy(Run next) {
      return next.channel == channel && next.mapped == mapped && next.chunkCrcs == chunkCrcs
          && position + length == next.position;
    }

    Run extend(int more) {
      return new Run(channel, file, position, length + more, mapped, chunkCrcs, firstChunk);
    }

    void copyTo(ByteBuffer dst) {
      if (mapped == null) {
        dst.put(bytes());
        return;
      }
      dst.put(dst.position(), mapped, (int) position, length);
      dst.position(dst.position() + length);
    }
  }
}
