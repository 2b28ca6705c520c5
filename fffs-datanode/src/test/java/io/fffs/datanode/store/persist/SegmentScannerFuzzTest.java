package io.fffs.datanode.store.persist;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.datanode.store.StoreStats;
import io.fffs.datanode.store.log.BlockOp;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Whatever a segment file holds, recovery's scan gives its valid entries in order (and cuts a torn tail) or refuses
 * the file with {@code CORRUPT} naming it; the scrubber's verify reports damage as text; nothing else escapes. The
 * harness writes segments from the fuzzer's bytes the way the persistence thread does — header, entry records
 * (pages, body, page and record CRCs), padding records, commit marks, a footer — and then damages them as the
 * fuzzer says, so the fuzzer gets behind the checksums. Fuzzed by {@code dev-support/fuzz.sh}.
 */
class SegmentScannerFuzzTest {
  private static final int PAGE = 512;
  private static final Path FILE = temp();

  private static Path temp() {
    try {
      Path file = Files.createTempFile("seg-", ".log");
      file.toFile().deleteOnExit();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @FuzzTest(maxDuration = "5m")
  void anySegmentGivesValidEntriesOrCorrupt(FuzzedDataProvider data) throws IOException {
    byte[] bytes = segment(data);
    Files.write(FILE, bytes);
    SegmentScanner.Verification verified = SegmentScanner.verify(FILE, 1, PAGE, new StoreStats(),
        data.consumeBoolean(), n -> { });
    assertThat(verified.entries()).isNotNegative();
    Files.write(FILE, bytes);
    long[] last = {-1};
    try {
      SegmentScanner.Result result = SegmentScanner.scan(FILE, 1, PAGE, new StoreStats(),
          (meta, location, file, offset) -> {
            assertThat(offset).isGreaterThan(last[0]);
            assertThat(meta.pageCount()).isNotNegative();
            last[0] = offset;
          });
      assertThat(result.entries()).isNotNegative();
    } catch (FffsException e) {
      assertThat(e.code()).isIn(ErrorCode.CORRUPT, ErrorCode.IO_ERROR);
      assertThat(e.detail()).contains(FILE.toString());
    }
  }

  /** A segment built from {@code data}: valid records, then damage where the fuzzer asks for it. */
  private static byte[] segment(FuzzedDataProvider data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    put(out, SegmentFormat.header(PAGE, 1, data.consumeBoolean() ? 0 : 4096));
    int records = data.consumeInt(0, 6);
    long entries = 0;
    for (int i = 0; i < records; i++) {
      int kind = data.consumeInt(0, 4);
      if (kind == 4) {  // a batch's commit mark
        put(out, SegmentFormat.commitMark(data.consumeBoolean() ? out.size() : data.consumeLong(),
            data.consumeBoolean() ? out.size() : data.consumeLong()));
        continue;
      }
      if (kind == 0) {
        int length = data.consumeInt(SegmentFormat.PAD_MIN_BYTES, 64);
        put(out, SegmentFormat.paddingHeader(length));
        out.write(new byte[length - SegmentFormat.PAD_MIN_BYTES], 0, length - SegmentFormat.PAD_MIN_BYTES);
        continue;
      }
      int pageCount = data.consumeInt(0, 2);
      ByteBuffer prefix = SegmentFormat.prefix(pageCount);
      int[] crcs = new int[pageCount];
      byte[][] pages = new byte[pageCount][];
      for (int p = 0; p < pageCount; p++) {
        pages[p] = Arrays.copyOf(data.consumeBytes(PAGE), PAGE);
        crcs[p] = SegmentFormat.crc(pages[p], 0, PAGE);
      }
      BlockOp[] ops = BlockOp.values();
      EntryMeta meta = new EntryMeta(data.consumeLong(), data.consumeInt(), ops[data.consumeInt(0, ops.length - 1)],
          data.consumeLong(), data.consumeLong(), data.consumeLong(), data.consumeInt(), data.consumeLong(), 0,
          pageCount);
      put(out, prefix);
      for (byte[] page : pages) {
        out.write(page, 0, PAGE);
      }
      put(out, SegmentFormat.body(prefix, meta, crcs));
      entries++;
    }
    if (data.consumeBoolean()) {
      put(out, SegmentFormat.footer(data.consumeBoolean() ? entries : data.consumeLong()));
    }
    byte[] bytes = out.toByteArray();
    int flips = data.consumeInt(0, 3);
    for (int i = 0; i < flips && bytes.length > 0; i++) {
      bytes[data.consumeInt(0, bytes.length - 1)] ^= (byte) data.consumeInt(1, 255);
    }
    return data.consumeBoolean() ? Arrays.copyOf(bytes, data.consumeInt(0, bytes.length)) : bytes;
  }

  private static void put(ByteArrayOutputStream out, ByteBuffer bytes) {
    ByteBuffer b = bytes.duplicate();
    byte[] array = new byte[b.remaining()];
    b.get(array);
    out.write(array, 0, array.length);
  }
}
