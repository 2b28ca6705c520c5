package io.fffs.bench.rdma;

import io.fffs.bench.e2e.Clusters;
import io.fffs.bench.e2e.FileIo;
import io.fffs.client.FffsClientConfigKeys;
import io.fffs.datanode.store.DataNodeConfigKeys;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.rdma.RdmaConfigKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;

/**
 * FFFS whole-file writes and reads through the Hadoop {@code FileSystem} API in one JVM (a MiniFffsCluster with one
 * DataNode, replication 1), over UCX or over TCP (Netty): the DataNode runs both servers ({@code fffs.transport=ucx}
 * on the DataNode; the UCX server runs beside the TCP data server) and each client chooses with its own
 * {@code fffs.transport}. The transfer size is the application's write and read size, the client's write packet
 * ({@code fffs.client.write.packet-size}), its read buffer ({@code fffs.client.read.buffer-size}) and its registered
 * UCX buffer ({@code fffs.rdma.buffer-size}): one packet or one read round trip per transfer.
 *
 * <p>Persistence is off ({@code fffs.datanode.persistence.enabled=false}): the benchmark compares transports, and on
 * a 2-core machine the disk thread would take its CPU from whichever case ran last. The arena holds every file
 * written (FFFS keeps versions), pre-touched before measuring.
 */
final class FffsTransfers implements AutoCloseable {
  private final MiniFffsCluster cluster;

  FffsTransfers(Path dir, long arenaBytes, int maxTransfer) throws IOException {
    Configuration conf = new Configuration();
    conf.set(DataTransferConfigKeys.TRANSPORT_KEY, "ucx");
    conf.setBoolean(RdmaConfigKeys.REQUIRE_DEVICE_KEY, false);
    conf.setLong(RdmaConfigKeys.BUFFER_SIZE_KEY, Math.max(maxTransfer, 1 << 20)); // DataNode staging buffers
    conf.setBoolean(DataNodeConfigKeys.PERSISTENCE_ENABLED_KEY, false);
    // A/B of the DataNode's write path: -Dfffs.bench.rdma.write-into-arena=false measures the staged path.
    conf.setBoolean(RdmaConfigKeys.WRITE_INTO_ARENA_KEY,
        Boolean.parseBoolean(System.getProperty("fffs.bench.rdma.write-into-arena", "true")));
    // A/B of the UCX worker threads' polling before they block (DataNode and clients): e.g.
    // -Dfffs.bench.rdma.worker-spin=50us; unset, the default of fffs.rdma.worker.spin.
    String spin = System.getProperty("fffs.bench.rdma.worker-spin");
    if (spin != null) {
      conf.set(RdmaConfigKeys.WORKER_SPIN_KEY, spin);
    }
    cluster = Clusters.fffs(dir, conf, arenaBytes);
    String transport = cluster.getDataNode(0).datanodeId().getTransport();
    if (!transport.equals("ucx")) {
      throw new IOException("the DataNode came up with transport " + transport + ", not ucx; is LD_LIBRARY_PATH"
          + " pointing at UCX 1.18 (libucp.so.0)?");
    }
  }

  /** A client of {@code transport} ({@code ucx} or {@code tcp}) sized for {@code transfer}-byte transfers. */
  FileSystem client(String transport, int transfer) throws IOException {
    String size = String.valueOf(transfer);
    return Clusters.client(cluster, DataTransferConfigKeys.TRANSPORT_KEY, transport,
        RdmaConfigKeys.REQUIRE_DEVICE_KEY, "false",
        RdmaConfigKeys.BUFFER_SIZE_KEY, String.valueOf(Math.max(transfer, 4096)),
        DataTransferConfigKeys.WRITE_PACKET_SIZE_KEY, size,
        FffsClientConfigKeys.READ_BUFFER_SIZE_KEY, size);
  }

  /** Writes {@code total} bytes of {@code data} repeated; GB/s. */
  static double write(FileSystem fs, org.apache.hadoop.fs.Path path, long total, byte[] data) throws IOException {
    return FileIo.write(fs, path, total, data);
  }

  /** Reads the file in {@code buffer.length}-byte calls; GB/s. */
  static double read(FileSystem fs, org.apache.hadoop.fs.Path path, long total, byte[] buffer) throws IOException {
    return FileIo.read(fs, path, total, buffer);
  }

  /** Untimed: true if the file is {@code total} bytes of {@code data} repeated. */
  static boolean verify(FileSystem fs, org.apache.hadoop.fs.Path path, long total, byte[] data) throws IOException {
    byte[] got = new byte[data.length];
    try (FSDataInputStream in = fs.open(path)) {
      for (long n = 0; n < total; n += data.length) {
        int length = (int) Math.min(data.length, total - n);
        in.readFully(got, 0, length);
        if (!Arrays.equals(got, 0, length, data, 0, length)) {
          return false;
        }
      }
      return in.read() < 0;
    }
  }

  @Override
  public void close() throws IOException {
    cluster.close();
  }
}
