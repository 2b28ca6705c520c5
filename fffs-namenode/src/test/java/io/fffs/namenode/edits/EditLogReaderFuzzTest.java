package io.fffs.namenode.edits;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Whatever an edit-log segment holds, reading it gives its good records in txid order and stops at a torn tail, or
 * refuses it with {@code CORRUPT} naming the file and offset; nothing else escapes. The harness builds segments
 * from the fuzzer's bytes the way the writer does — header, then records with their CRCs and commit markers — and
 * then damages them as the fuzzer says (wrong lengths, txids, CRCs, markers, bodies that are not ops, bytes
 * flipped, the tail cut), so the fuzzer reaches the parsing behind the checksums. Fuzzed by {@code dev-support/fuzz.sh}.
 */
class EditLogReaderFuzzTest {
  private static final Path FILE = temp();

  private static Path temp() {
    try {
      Path file = Files.createTempFile("fffs-edits-fuzz", ".log");
      file.toFile().deleteOnExit();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @FuzzTest(maxDuration = "5m")
  void anySegmentGivesGoodRecordsInOrderOrCorrupt(FuzzedDataProvider data) throws IOException {
    boolean newest = data.consumeBoolean();
    long first = data.consumeLong(0, 1_000);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean markers = data.consumeBoolean();  // a segment of today's version, or one written before markers
    ByteBuffer header = EditLogFormat.fileHeader(first);
    if (!markers) {
      header.putInt(8, EditLogFormat.VERSION_WITHOUT_MARKERS);
    }
    out.write(header.array(), 0, header.limit());
    int records = data.consumeInt(0, 8);
    long txid = first;
    int batchStart = EditLogFormat.FILE_HEADER_BYTES;
    for (int i = 0; i < records; i++) {
      long recordTxid = data.consumeBoolean() ? txid : data.consumeLong();
      byte[] body = data.consumeBytes(data.consumeInt(0, 64));
      ByteBuffer record = EditLogFormat.encode(recordTxid, data.consumeLong(), body);
      if (data.consumeBoolean()) {
        record.putInt(data.consumeInt(0, 3) * 4, data.consumeInt());  // length, CRC or txid damaged
      }
      out.write(record.array(), 0, record.limit());
      txid++;
      if (markers && data.consumeBoolean()) {  // the batch ends here: its commit marker, possibly damaged
        ByteBuffer marker = EditLogFormat.commitMarker(data.consumeBoolean() ? txid - 1 : data.consumeLong(),
            data.consumeBoolean() ? batchStart : data.consumeInt());
        if (data.consumeBoolean()) {
          marker.putInt(data.consumeInt(0, 5) * 4, data.consumeInt());
        }
        out.write(marker.array(), 0, marker.limit());
        batchStart = out.size();
      }
    }
    byte[] bytes = out.toByteArray();
    if (data.consumeBoolean() && bytes.length > 0) {
      bytes[data.consumeInt(0, bytes.length - 1)] ^= (byte) data.consumeInt(1, 255);
    }
    int length = data.consumeBoolean() ? data.consumeInt(0, bytes.length) : bytes.length;
    Files.write(FILE, java.util.Arrays.copyOf(bytes, length));
    List<Long> txids = new ArrayList<>();
    try {
      long end = EditLogReader.read(FILE, newest, record -> txids.add(record.txid()));
      assertThat(end).isBetween(0L, (long) length);
    } catch (FffsException e) {
      assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT);
      assertThat(e.detail()).contains(FILE.toString());
    }
    for (int i = 1; i < txids.size(); i++) {
      assertThat(txids.get(i)).isEqualTo(txids.get(i - 1) + 1);
    }
  }
}
