package io.fffs.common.usertime;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.nio.ByteBuffer;
import java.util.function.LongConsumer;

/**
 * The user-time plug-in SPI (docs/design.md §8): turns the bytes a client writes into the user timestamps (µs since
 * the epoch) of the records in them. Implementations are found by {@link #name()} through
 * {@link java.util.ServiceLoader} (list the class in
 * {@code META-INF/services/io.fffs.common.usertime.UserTimeExtractor}); see
 * {@link UserTimeExtractors#load(String)}. A file's plug-in name may carry parameters after a colon
 * ({@code ts64:fixed=32}); the extractor named before the colon gets them through {@link #withParameters(String)}.
 *
 * <p>An extractor itself is stateless and thread-safe: it only makes {@link Stream}s. A record may be split across
 * two writes, so the parsing state lives in a {@code Stream}, one per block (or file) being written, which carries
 * the bytes of an unfinished record from one write to the next.
 */
public interface UserTimeExtractor {
  /** The stable name files refer to ({@code fffs.usertime.plugin}); lower case, no spaces, no ':'. */
  String name();

  /**
   * This extractor configured for one file: {@code parameters} is the text after the first ':' of the file's plug-in
   * name, e.g. {@code "fixed=32"} for {@code ts64:fixed=32}. Each extractor documents what it accepts; by default it
   * accepts none.
   *
   * @throws FffsException {@code INVALID_ARGUMENT} naming the parameter that is wrong and what would be accepted
   */
  default UserTimeExtractor withParameters(String parameters) throws FffsException {
    throw new FffsException(ErrorCode.INVALID_ARGUMENT, "user-time plug-in '" + name()
        + "' takes no parameters, but its name was given as '" + name() + ":" + parameters + "'");
  }

  /** A fresh stream positioned at a record boundary (the start of a block or file). */
  Stream newStream();

  /**
   * The parsing state of one byte stream. Not thread-safe: one writer feeds it. To try a write without committing
   * to it (the store refuses writes whose times go backwards and must then leave everything as it was), call
   * {@link #copy()} and feed the copy; keep the copy only if the write is accepted.
   */
  interface Stream {
    /**
     * Consumes the bytes from {@code data}'s position to its limit (without moving them) and reports, in order, the
     * user time of every record that ends within them — including a record begun in an earlier call. Bytes of a
     * record not yet complete stay in this stream for the next call.
     *
     * @throws FffsException {@code INVALID_ARGUMENT} if the bytes are not records this extractor understands,
     *     naming what is wrong and where
     */
    void extract(ByteBuffer data, LongConsumer userTimes) throws FffsException;

    /** An independent copy of this stream's state. */
    Stream copy();
  }
}
