package io.fffs.plugins;

import io.fffs.common.error.FffsException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.LongConsumer;

/**
 * A {@link RecordStream} of newline-terminated records ({@code \n}, a {@code \r} before it is dropped). It keeps the
 * bytes of the current line up to a limit, and lets the subclass read the user time of each complete line. Empty
 * lines are not records and are skipped. A last line without its {@code \n} is not complete and gets no time.
 */
abstract class LineStream extends RecordStream {
  private final int maxKept;
  private byte[] kept;
  private int length;
  /** Whether the rest of the current line is only counted, not kept (see {@link #wantsMore}). */
  private boolean skipping;
  private long lineStart;

  LineStream(String label, int maxKept) {
    super(label);
    this.maxKept = maxKept;
    this.kept = new byte[Math.min(maxKept, 64)];
  }

  LineStream(LineStream other) {
    super(other);
    this.maxKept = other.maxKept;
    this.kept = Arrays.copyOf(other.kept, Math.max(other.length, Math.min(other.maxKept, 64)));
    this.length = other.length;
    this.skipping = other.skipping;
    this.lineStart = other.lineStart;
  }

  @Override
  final void consume(byte b, LongConsumer userTimes) throws FffsException {
    if (length == 0 && !skipping) {
      lineStart = position();
    }
    if (b == '\n') {
      int end = length > 0 && kept[length - 1] == '\r' && !skipping ? length - 1 : length;
      if (end > 0 || skipping) {
        userTimes.accept(timeOfLine(kept, end, lineStart));
      }
      length = 0;
      skipping = false;
      return;
    }
    if (skipping) {
      return;
    }
    if (!wantsMore(kept, length, b)) {
      skipping = true;
      return;
    }
    if (length == maxKept) {
      throw badRecord(lineStart, tooLong(maxKept));
    }
    if (length == kept.length) {
      kept = Arrays.copyOf(kept, (int) Math.min(maxKept, 2L * kept.length));
    }
    kept[length++] = b;
  }

  /**
   * Whether the line's bytes from {@code b} on still matter; once false, the rest of the line is skipped and
   * {@link #timeOfLine} sees only the bytes kept so far.
   */
  boolean wantsMore(byte[] line, int length, byte b) {
    return true;
  }

  /** The problem to name when a line needs more than {@code maxKept} bytes kept. */
  abstract String tooLong(int maxKept);

  /** The user time of the line whose kept bytes are {@code line[0, length)}, which starts at {@code lineStart}. */
  abstract long timeOfLine(byte[] line, int length, long lineStart) throws FffsException;

  static String text(byte[] line, int from, int to) {
    return new String(line, from, to - from, StandardCharsets.UTF_8);
  }
}
