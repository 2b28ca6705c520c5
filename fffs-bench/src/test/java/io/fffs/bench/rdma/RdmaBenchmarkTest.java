package io.fffs.bench.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fffs.bench.e2e.BenchArgs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quick path of {@code bin/fffs bench rdma}, narrowed to its smallest case (UCX_TLS=tcp, 64 KiB transfers,
 * 4 MiB per file): the child JVM starts with the UCX environment, every system moves and verifies its bytes, and
 * the CSV and PNG are written. No timing is asserted, only that every rate is a positive number.
 */
class RdmaBenchmarkTest {
  @TempDir
  Path out;

  @AfterEach
  void clearNarrowing() {
    System.clearProperty("fffs.bench.rdma.tls");
    System.clearProperty("fffs.bench.rdma.sizes");
    System.clearProperty("fffs.bench.rdma.bytes");
  }

  @Test
  void quickSmallestCaseVerifiesItsBytesAndWritesTheCsv() throws Exception {
    String lib = System.getProperty("fffs.ucx.lib");
    assertTrue(lib != null && Files.exists(Paths.get(lib, "libucp.so.0")), "UCX 1.18.1 must be unpacked at "
        + lib + " (dev-support/install-ucx.sh; -Dfffs.ucx.lib points at it)");
    System.setProperty("fffs.bench.rdma.tls", "tcp");
    System.setProperty("fffs.bench.rdma.sizes", String.valueOf(64 << 10));
    System.setProperty("fffs.bench.rdma.bytes", String.valueOf(4 << 20));
    BenchArgs args = BenchArgs.parse(new String[] {"rdma", "--quick", "--out", out.toString()});

    String summary = RdmaBenchmark.run(args);

    assertTrue(summary.contains("bytes verified: yes"), summary);
    List<String> csv = Files.readAllLines(args.csv());
    assertEquals(2, csv.size(), "header and one row: " + csv);
    assertTrue(csv.get(0).startsWith("ucx_tls,size_bytes,fffs_ucx_write_gbps"), csv.get(0));
    String[] row = csv.get(1).split(",");
    assertEquals("\"tcp\"", row[0]);
    assertEquals("65536", row[1]);
    for (int i = 2; i <= 9; i++) {
      double rate = Double.parseDouble(row[i]);
      assertTrue(rate > 0 && Double.isFinite(rate), "column " + i + " of " + csv.get(1));
    }
    assertEquals("true", row[14]);
    assertEquals(21, row.length, csv.get(1));
    for (int i = 15; i < row.length; i++) {
      double cpuPerGb = Double.parseDouble(row[i]);
      assertTrue(cpuPerGb >= 0 && Double.isFinite(cpuPerGb), "CPU column " + i + " of " + csv.get(1));
    }
    assertTrue(Files.size(args.png()) > 0);
  }
}
