package io.fffs.client.data;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.LocalReadResponseProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.security.BlockToken;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.common.time.TimeSpec;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Short-circuit reads ({@code fffs.client.read.shortcircuit}): for a replica on this host, the client asks the
 * DataNode where a range's bytes are (LOCAL_READ, showing the block's READ token; the DataNode resolves the time as
 * for a READ) and copies them from the DataNode's arena and segment files itself ({@link ShortCircuitCopy}), in
 * requests of {@code fffs.client.read.shortcircuit.request-size}. A copy that fails its check goes on through the
 * data port from where it stopped; a DataNode that serves no short-circuit reads, or whose files this process cannot
 * open, is read through its data port from then on. A sequential reader has its next pieces located and their
 * evicted pages brought into the page cache ahead of it ({@link #ahead}) by the kernel's read-ahead
 * ({@link SegmentReadAhead}), on threads the client's readers share, while the reader copies the piece before: the
 * reader's copy then finds them there. With {@code directIo} those pages are read around the page cache instead,
 * into buffers of the client's ({@link ShortCircuitPreload}; at most {@link #PRELOAD_BUFFERS}, the pieces beyond them
 * read by their readers themselves), so no page-cache page is made for them. Thread-safe.
 */
final class ShortCircuit implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(ShortCircuit.class);
  private static final int SCRATCH_BYTES = 1 << 20;
  /**
   * Pieces a sequential reader keeps located ahead, and threads that locate and warm them for all of the client's
   * streams: three through the page cache, two with {@code directIo}. A first read of 1 GiB of evicted data by a fresh
   * client ran at 0.60-0.74 GB/s with three against 0.32-0.49 with two (four: 0.58-0.63); with direct I/O at
   * 0.62-0.68 against 0.65-0.87.
   */
  private static final int AHEAD_BUFFERED = 3;
  private static final int AHEAD_DIRECT = 2;
  /** Buffers of a request's size that pieces are read ahead into with {@code directIo}, for all streams. */
  static final int PRELOAD_BUFFERS = 8;

  /** One request without payload to a DataNode, answered or thrown typed (the client's TCP call). */
  @FunctionalInterface
  interface Call {
    ResponseHeaderProto call(DatanodeIdProto datanode, RequestHeaderProto.Builder request) throws IOException;
  }

  /** The rest of a read through the data port, from block offset {@code at} into {@code dst}. */
  @FunctionalInterface
  interface SocketRead {
    ReadResult read(long at, ByteBuffer dst) throws IOException;
  }

  private final int requestSize;
  private final boolean directIo;
  private final Call call;
  private final ShortCircuitFiles files = new ShortCircuitFiles();
  private final ShortCircuitStats stats = new ShortCircuitStats();
  private final ConcurrentLinkedDeque<ShortCircuitCopy> copies = new ConcurrentLinkedDeque<>();
  /** DataNodes (host:port) read through their data port only. */
  private final Set<String> refused = ConcurrentHashMap.newKeySet();
  private final int aheadPieces;
  private final ExecutorService aheadThreads;
  /** With {@code directIo}: buffers pieces' pages are read ahead into, free for the next, and how many were made. */
  private final ConcurrentLinkedDeque<ByteBuffer> preloadBuffers = new ConcurrentLinkedDeque<>();
  private final AtomicInteger preloadBuffersMade = new AtomicInteger();

  /** A piece located ahead, with its pages read ahead around the page cache (or null). */
  record Piece(LocalReadResponseProto answer, ShortCircuitPreload preload) {
    /** The reader is done with it. */
    void release() {
      if (preload != null) {
        preload.release();
      }
    }
  }

  /**
   * A piece of a block to be located, and its evicted pages brought into the page cache, ahead of the reader that
   * will copy it. Its answer always completes: located, failed, cancelled, or failed by {@link #close}. A reader that
   * gets to a piece no thread has started yet takes it back ({@link #take}) rather than wait behind other readers'
   * pieces.
   */
  final class Ahead implements Runnable {
    private final DatanodeIdProto datanode;
    private final long blockId;
    private final BlockToken token;
    private final long offset;
    private final int length;
    private final TimeSpec time;
    private final CompletableFuture<Piece> answer = new CompletableFuture<>();
    private final AtomicBoolean claimed = new AtomicBoolean();

    private Ahead(DatanodeIdProto datanode, long blockId, BlockToken token, long offset, int length, TimeSpec time) {
      this.datanode = datanode;
      this.blockId = blockId;
      this.token = token;
      this.offset = offset;
      this.length = length;
      this.time = time;
    }

    long offset() {
      return offset;
    }

    int length() {
      return length;
    }

    /** The reader no longer wants it: not started, it never will be; located, its buffer goes back. */
    void cancel() {
      if (!answer.cancel(false) && !answer.isCompletedExceptionally()) {
        answer.join().release();
      }
    }

    @Override
    public void run() {
      if (answer.isDone() || !claimed.compareAndSet(false, true)) {
        return;  // cancelled, or taken back by its reader
      }
      try {
        LocalReadResponseProto located = locate(datanode, blockId, token, offset, length, time);
        Piece piece = new Piece(located, directIo ? preload(located) : null);
        readAhead(located, 0);
        if (!answer.complete(piece)) {
          piece.release();  // cancelled meanwhile
        }
      } catch (Throwable e) {
        answer.completeExceptionally(e);
      }
    }
  }

  ShortCircuit(int requestSize, boolean directIo, Call call) {
    this.requestSize = requestSize;
    this.directIo = directIo;
    this.call = call;
    this.aheadPieces = directIo ? AHEAD_DIRECT : AHEAD_BUFFERED;
    ThreadPoolExecutor threads = new ThreadPoolExecutor(aheadPieces, aheadPieces, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "fffs-shortcircuit-ahead");
          t.setDaemon(true);
          return t;
        });
    threads.allowCoreThreadTimeOut(true);
    this.aheadThreads = threads;
  }

  /** Pieces a sequential reader keeps located ahead of the one it copies. */
  int aheadPieces() {
    return aheadPieces;
  }

  ShortCircuitStats stats() {
    return stats;
  }

  int requestSize() {
    return requestSize;
  }

  /** Whether reads of {@code datanode} try the short circuit. */
  boolean applies(DatanodeIdProto datanode) {
    return LocalHosts.isLocal(datanode.getHost()) && !refused.contains(key(datanode));
  }

  /**
   * Where {@code length} bytes of the block from {@code offset} as of {@code time} are; {@link ShortCircuitStale}
   * when this DataNode serves no short-circuit reads (it is not asked again). The DataNode's refusals (a bad token,
   * a time in the future, ...) are thrown as they are.
   */
  LocalReadResponseProto locate(DatanodeIdProto datanode, long blockId, BlockToken token, long offset, int length,
      TimeSpec time) throws IOException {
    RequestHeaderProto.Builder request = RequestHeaders.of(token, blockId, offset, length, time, HlcTimestamp.ZERO)
        .setOp(OpProto.LOCAL_READ);
    try {
      LocalReadResponseProto answer = call.call(datanode, request).getLocalRead();
      stats.requests.increment();
      return answer;
    } catch (FffsException e) {
      if (e.code() != ErrorCode.UNSUPPORTED) {
        throw e;
      }
      refuse(datanode, e.getMessage());
      throw new ShortCircuitStale(e.getMessage(), e);
    }
  }

  /**
   * Locates {@code length} bytes of the block from {@code offset} as of {@code time} on an ahead thread and brings
   * the answer's segment pages into the page cache, so that they are there when the reader copies them. The answer is
   * checked when it is copied, as any is; a failure here leaves the reader to locate the piece itself.
   */
  Ahead ahead(DatanodeIdProto datanode, long blockId, BlockToken token, long offset, int length, TimeSpec time) {
    Ahead piece = new Ahead(datanode, blockId, token, offset, length, time);
    try {
      aheadThreads.execute(piece);
    } catch (RejectedExecutionException e) {
      piece.answer.completeExceptionally(e);  // closed
    }
    return piece;
  }

  /**
   * The piece located ahead (its buffer the caller's to release), or null when the reader is to locate it itself:
   * no thread had started it yet (it never will now), or it failed.
   *
   * @throws InterruptedIOException when the reader is interrupted while it waits
   */
  static Piece take(Ahead ahead) throws InterruptedIOException {
    if (ahead.claimed.compareAndSet(false, true)) {
      return null;
    }
    try {
      return ahead.answer.get();
    } catch (ExecutionException | CancellationException e) {
      return null;
    } catch (InterruptedException e) {
      ahead.cancel();  // its buffer goes back when it is done
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while a short-circuit piece was located ahead");
    }
  }

  /**
   * The segment pages of {@code answer} the page cache does not hold, read around it into a free preload buffer;
   * null when all {@link #PRELOAD_BUFFERS} are taken (the reader reads the piece itself).
   */
  private ShortCircuitPreload preload(LocalReadResponseProto answer) {
    ByteBuffer buffer = preloadBuffers.pollFirst();
    if (buffer == null) {
      if (preloadBuffersMade.incrementAndGet() > PRELOAD_BUFFERS) {
        preloadBuffersMade.decrementAndGet();
        return null;
      }
      try {
        // A piece's pages, and the parts of aligned blocks around its extents.
        buffer = ShortCircuitPreload.alignedBuffer(requestSize + requestSize / 8 + 4 * ShortCircuitPreload.ALIGNMENT);
      } catch (OutOfMemoryError | RuntimeException e) {
        preloadBuffersMade.decrementAndGet();  // no direct memory left for it: the reader reads the piece itself
        return null;
      }
    }
    stats.preloadBuffersLent.increment();
    try {
      return ShortCircuitPreload.read(answer, files, stats, buffer, this::giveBack);
    } catch (RuntimeException e) {
      giveBack(buffer);  // the reader reads the piece itself and meets what went wrong
      return null;
    }
  }

  private void giveBack(ByteBuffer preloadBuffer) {
    stats.preloadBuffersLent.decrement();
    preloadBuffers.addFirst(preloadBuffer);
  }

  /**
   * Brings the segment pages of {@code answer} from byte {@code skip} on (and their CRCs) into the page cache before
   * they are copied ({@link SegmentReadAhead}): on an ahead thread, or by a reader that located the piece itself.
   * Nothing with {@code directIo}, where the pages the page cache lacks are read around it.
   */
  void readAhead(LocalReadResponseProto answer, long skip) {
    readAhead(answer, skip, Long.MAX_VALUE);
  }

  /** {@link #readAhead(LocalReadResponseProto, long)} of the {@code take} bytes from {@code skip}. */
  void readAhead(LocalReadResponseProto answer, long skip, long take) {
    if (!directIo) {
      stats.warmedBytes.add(SegmentReadAhead.warm(answer, files, skip, take));
    }
  }

  /** Reads {@code datanode}'s files no more (with the reason, once). */
  void refuse(DatanodeIdProto datanode, String reason) {
    stats.refused.increment();
    if (refused.add(key(datanode))) {
      LOG.info("Reading DataNode {} through its data port from now on, not its files: {}", key(datanode), reason);
    }
  }

  /**
   * Copies the answer's bytes from {@code skip} into {@code dst}, segment pages from {@code preload} where it holds
   * them (it may be null); a copy that cannot be trusted is {@link ShortCircuitStale} (dst unchanged). A DataNode
   * whose arena epoch file cannot be opened is refused.
   */
  int copy(DatanodeIdProto datanode, LocalReadResponseProto answer, ShortCircuitPreload preload, long skip,
      ByteBuffer dst) throws ShortCircuitStale {
    ShortCircuitCopy copy = copies.pollFirst();
    if (copy == null) {
      copy = new ShortCircuitCopy(files, stats, SCRATCH_BYTES, directIo);
    }
    try {
      return copy.copy(answer, preload, skip, dst);
    } catch (ShortCircuitStale e) {
      if (e.getCause() instanceof java.nio.file.AccessDeniedException
          || e.getCause() instanceof java.nio.file.NoSuchFileException
          && String.valueOf(e.getMessage()).contains(answer.getArenaEpochFile())) {
        refuse(datanode, e.getMessage());
      }
      throw e;
    } finally {
      copies.addFirst(copy);
    }
  }

  /**
   * Reads up to {@code dst.remaining()} bytes of a block from {@code offset} as of {@code time} (fewer at its end)
   * from the DataNode's files, going on through {@code socket} from where a copy fails its check.
   */
  ReadResult read(DatanodeIdProto datanode, long blockId, BlockToken token, long offset, ByteBuffer dst,
      TimeSpec time, SocketRead socket) throws IOException {
    int total = 0;
    long blockLength = -1;
    HlcTimestamp resolved = null;
    do {
      int asked = Math.min(dst.remaining(), requestSize);
      int n;
      try {
        LocalReadResponseProto answer = locate(datanode, blockId, token, offset + total, asked, time);
        if (resolved == null) {
          resolved = HlcTimestamp.fromProto(answer.getResolvedHlc());
          blockLength = answer.getBlockLength();
        }
        readAhead(answer, 0);
        n = copy(datanode, answer, null, 0, dst);
      } catch (ShortCircuitStale e) {
        ReadResult rest = socket.read(offset + total, dst);
        return new ReadResult(total + rest.bytesRead(), resolved == null ? rest.blockLength() : blockLength,
            resolved == null ? rest.resolvedHlc() : resolved);
      }
      total += n;
      if (n < asked) {
        break;  // the block ends here as of that time
      }
    } while (dst.hasRemaining());
    return new ReadResult(total, Math.max(blockLength, 0), resolved);
  }

  private static String key(DatanodeIdProto datanode) {
    return datanode.getHost() + ":" + datanode.getDataPort();
  }

  @Override
  public void close() {
    for (Runnable queued : aheadThreads.shutdownNow()) {
      ((Ahead) queued).answer.completeExceptionally(new IOException("the client was closed"));
    }
    files.close();
  }
}
