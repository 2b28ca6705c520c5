package io.fffs.rdma.server;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.datanode.store.PageReservation;
import io.fffs.rdma.SideChannelFormat.Descriptor;
import io.fffs.rdma.UcxWorkerLoop;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One UCX write whose bytes are on their way into the arena pages reserved for it: one GET per run of adjacent
 * pages (a write has one run, or two where it straddles an arena file), all issued at once on the worker loop.
 * {@link #fetched} completes when every GET has; {@link #await} waits for it until the write's deadline. If the
 * GETs do not complete in time the client's side channel is closed (which force-closes its endpoint and so cancels
 * them) and they are waited for once more: the caller releases the pages only when no GET can still land in them.
 */
final class ArenaFetch {
  private static final Logger LOG = LoggerFactory.getLogger(ArenaFetch.class);

  final UcxWriteApplier.Job job;
  final PageReservation reservation;
  final CompletableFuture<Void> fetched;
  private final List<CompletableFuture<Void>> gets;
  private final long deadlineNanos;
  private final long timeoutMillis;

  private ArenaFetch(UcxWriteApplier.Job job, PageReservation reservation, List<CompletableFuture<Void>> gets,
      long timeoutMillis) {
    this.job = job;
    this.reservation = reservation;
    this.gets = gets;
    this.fetched = CompletableFuture.allOf(gets.toArray(new CompletableFuture<?>[0]));
    this.timeoutMillis = timeoutMillis;
    this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
  }

  /** Issues the GETs of {@code job}'s bytes into {@code reservation}'s regions. */
  static ArenaFetch start(UcxWorkerLoop loop, MappedFiles arena, UcxWriteApplier.Job job,
      PageReservation reservation, long timeoutMillis) {
    Descriptor where = job.descriptor;
    List<CompletableFuture<Void>> gets = new ArrayList<>(reservation.regions().size());
    List<long[]> targets = new ArrayList<>(reservation.regions().size());
    try {
      for (PageReservation.Region region : reservation.regions()) {
        MappedFiles.Mapped file = arena.of(region.channel());
        targets.add(new long[] {where.address() + region.writeOffset(), file.address() + region.position(),
            region.length()});
        gets.add(new CompletableFuture<>());
      }
    } catch (IOException e) {
      gets.clear();
      gets.add(CompletableFuture.failedFuture(e));
      return new ArenaFetch(job, reservation, gets, timeoutMillis);
    }
    try {
      loop.execute(() -> {
        for (int i = 0; i < targets.size(); i++) {
          long[] t = targets.get(i);
          CompletableFuture<Void> done = gets.get(i);
          try {
            UcxCallback callback = loop.track(done, "GET of " + t[2] + " bytes into the arena");
            UcpRequest get = job.peer.endpoint().getNonBlocking(t[0], job.peer.rkey(where.rkey()), t[1], t[2],
                callback);
            UcxWorkerLoop.issued(get, callback);
          } catch (RuntimeException e) {
            done.completeExceptionally(e);
          }
        }
      });
    } catch (IllegalStateException e) {
      gets.forEach(get -> get.completeExceptionally(e));
    }
    return new ArenaFetch(job, reservation, gets, timeoutMillis);
  }

  /** Nanoseconds until the deadline (≤ 0 once passed). */
  long remainingNanos() {
    return deadlineNanos - System.nanoTime();
  }

  /** Waits for the bytes until the deadline; {@code IO_ERROR} if they did not all arrive. */
  void await() throws FffsException {
    try {
      fetched.get(Math.max(0, remainingNanos()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException | TimeoutException e) {
      if (e instanceof TimeoutException) {
        job.peer.channel.close();
        awaitQuietly();
      }
      String why = job.peer.brokenReason() != null ? job.peer.brokenReason()
          : e instanceof ExecutionException ? e.getCause().getMessage() : "no answer within " + timeoutMillis + " ms";
      throw new FffsException(ErrorCode.IO_ERROR, "could not fetch the " + job.descriptor.length() + " bytes of a"
          + " write to block " + job.request.getBlockId() + " from " + job.peer.channel.remoteAddress()
          + " over UCX: " + why + "; nothing was written");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      awaitQuietly();
      throw new FffsException(ErrorCode.IO_ERROR, "interrupted fetching a write; nothing was written");
    }
  }

  /** Waits for every GET to end, failed or not (after the endpoint was closed), so no byte lands later. */
  void awaitQuietly() {
    try {
      CompletableFuture.allOf(gets.toArray(new CompletableFuture<?>[0])).handle((ok, error) -> null)
          .get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (ExecutionException impossible) {
      // handled above
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      LOG.error("interrupted waiting for {} UCX GET(s) into the arena; their pages are released anyway", gets.size());
    } catch (TimeoutException e) {
      LOG.error("{} UCX GET(s) into the arena did not finish after their endpoint was closed; their pages are"
          + " released anyway", gets.size());
    }
  }
}
