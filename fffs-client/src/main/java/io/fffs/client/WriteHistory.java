package io.fffs.client;

import java.util.List;

/**
 * The writes that changed a file's bytes within a span of time, oldest first, as its DataNodes logged them.
 *
 * @param writes the writes and cuts, by HLC
 * @param completeFromMicros every write stamped from this moment (µs) on is listed; garbage collection may have
 *     dropped earlier ones, which are then not listed at all (0: nothing was dropped)
 */
public record WriteHistory(List<FileWrite> writes, long completeFromMicros) {}
