package io.fffs.bench.e2e;

import io.fffs.bench.Closeables;
import io.fffs.client.FffsClientConfigKeys;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.protocol.DataTransferConfigKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * A {@link FileSide} in this JVM: an FFFS {@code MiniFffsCluster} (persistence on, the default) or an HDFS
 * {@code MiniDFSCluster}, one DataNode each, and one client per packet and read-buffer size, kept until closed.
 */
final class LocalFileSide implements FileSide {
  private final String name;
  private final MiniFffsCluster fffs;
  private final MiniDFSCluster hdfs;
  private final Map<String, FileSystem> clients = new HashMap<>();
  private final Map<Integer, byte[]> data = new HashMap<>();
  /**
   * Reads of each warm-up file per pass. FFFS reads a block in 1 MiB requests, so its per-request code runs once
   * per MiB read, and HotSpot compiles a method at its top tier after some 15,000 calls: measured 2026-11-25 (FFFS
   * alone in its JVM, a 256 MiB file read in 64 KiB calls), whole-file reads still rose from 2–3 to 3.5–4 GB/s
   * between the 30th and the 90th read while C2 compiled the request path. Two reads per pass left it there after
   * 16 passes; reads do not grow the arena as writes do.
   */
  static final int WARM_UP_READS = 8;

  private LocalFileSide(String name, MiniFffsCluster fffs, MiniDFSCluster hdfs) {
    this.name = name;
    this.fffs = fffs;
    this.hdfs = hdfs;
  }

  /** {@code FFFS} with an arena of {@code arena} bytes, or {@code HDFS}, under {@code dir}. */
  static LocalFileSide start(String name, Path dir, long arena) throws IOException {
    switch (name) {
      case "FFFS":
        return new LocalFileSide(name, Clusters.fffs(dir, new Configuration(), arena), null);
      case "HDFS":
        return new LocalFileSide(name, null, Clusters.hdfs(dir, new Configuration()));
      default:
        throw new IllegalArgumentException("unknown system " + name + "; FFFS or HDFS");
    }
  }

  @Override
  public String name() {
    return name;
  }

  private FileSystem client(int packet, int readBuffer) throws IOException {
    String key = packet + "/" + readBuffer;
    FileSystem fs = clients.get(key);
    if (fs == null) {
      String p = String.valueOf(packet);
      if (fffs != null) {
        fs = readBuffer > 0
            ? Clusters.client(fffs, DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, p,
                FffsClientConfigKeys.READ_BUFFER_SIZE_KEY, String.valueOf(readBuffer))
            : Clusters.client(fffs, DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, p);
      } else {
        fs = Clusters.client(hdfs, "dfs.client-write-packet-size", p);
      }
      clients.put(key, fs);
    }
    return fs;
  }

  @Override
  public JitWarmUp.Result warmUp(int[] packets, long passBytes, int minPasses, int maxPasses) throws IOException {
    JitWarmUp.Result result = JitWarmUp.run(pass -> {
      long written = 0;
      for (int packet : packets) {
        long bytes = JitWarmUp.bytesPerPacket(packet, passBytes);
        org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path("/warm-up/p" + packet + "-" + pass);
        FileSystem fs = client(packet, 0);
        FileIo.write(fs, path, bytes, data(packet));
        for (int read = 0; read < WARM_UP_READS; read++) {
          FileIo.read(fs, path, bytes, new byte[packet]);
        }
        fs.delete(path, false);
        written += bytes;
      }
      return written;
    }, minPasses, maxPasses);
    awaitQuiet();
    return result;
  }

  private byte[] data(int packet) {
    return data.computeIfAbsent(packet, p -> FileIo.randomBytes(p, p));
  }

  @Override
  public double write(String path, long total, int packet) throws IOException {
    return FileIo.write(client(packet, 0), new org.apache.hadoop.fs.Path(path), total, data(packet));
  }

  @Override
  public double read(String path, long total, int packet, int readBuffer) throws IOException {
    return FileIo.read(client(packet, readBuffer), new org.apache.hadoop.fs.Path(path), total, new byte[packet]);
  }

  @Override
  public long persistedBytes() {
    return fffs == null ? 0 : fffs.getDataNode(0).store().stats().bytesPersisted.sum();
  }

  @Override
  public double awaitQuiet() throws IOException {
    return fffs == null ? 0 : FileIo.awaitPersistenceQuiet(fffs);
  }

  @Override
  public void close() throws IOException {
    try {
      Closeables.closeAll(clients.values());
    } finally {
      if (hdfs != null) {
        Clusters.shutdown(hdfs);
      }
      if (fffs != null) {
        fffs.close();
      }
    }
  }
}
