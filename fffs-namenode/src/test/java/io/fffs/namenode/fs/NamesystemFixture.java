package io.fffs.namenode.fs;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.BlockProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.LocatedBlockProto;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.ManualPhysicalClock;
import io.fffs.namenode.NameNodeConfigKeys;
import io.fffs.namenode.permission.Caller;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;

/** A namesystem on a temp directory with a manual clock, and a DataNode registered so blocks can be placed. */
final class NamesystemFixture implements AutoCloseable {
  static final Caller ADMIN = new Caller("admin", List.of("supergroup"));
  static final Caller ALICE = new Caller("alice", List.of("staff"));
  static final Caller BOB = new Caller("bob", List.of("users"));
  static final long START_MICROS = 1_763_719_200_000_000L;

  final Path dir;
  final ManualPhysicalClock physical;
  final AtomicLong nanos = new AtomicLong();
  final Configuration conf;
  Namesystem fs;

  NamesystemFixture(Path dir) throws IOException {
    this(dir, new Configuration(false));
  }

  NamesystemFixture(Path dir, Configuration conf) throws IOException {
    this.dir = dir;
    this.conf = conf;
    this.physical = new ManualPhysicalClock(START_MICROS);
    start();
  }

  void start() throws IOException {
    startInSafeMode();
    fs.safeMode().leave("test");
  }

  /** Starts with the namesystem in the safe mode it loads in (on while blocks are unreported). */
  void startInSafeMode() throws IOException {
    fs = new Namesystem(conf, dir, new HybridLogicalClock(physical, 250_000), nanos::get, "admin");
    fs.datanodes().register(DatanodeIdProto.newBuilder().setDatanodeUuid("dn-1").setHost("127.0.0.1")
        .setDataPort(50010).setIpcPort(0).build(), 1L << 30, 0);
  }

  void restart() throws IOException {
    fs.close();
    start();
  }

  /** Restarts without leaving safe mode. */
  void restartInSafeMode() throws IOException {
    fs.close();
    startInSafeMode();
  }

  /** Moves the physical clock on by {@code micros}. */
  long advance(long micros) {
    return physical.advance(micros);
  }

  /** The physical clock's time now, µs. */
  long now() {
    return physical.currentTimeMicros();
  }

  /** Creates a file of one block of {@code length} bytes, closed; returns the block id. */
  long writeFile(String path, long length) throws Exception {
    FileStatusProto created = fs.files.create(ADMIN, path, 0644, "client-1", true, true, 1, 1 << 20, null).await();
    LocatedBlockProto block = fs.files.addBlock(ADMIN, path, created.getInodeId(), "client-1", null).await();
    fs.files.complete(ADMIN, path, created.getInodeId(), "client-1",
        BlockProto.newBuilder().setBlockId(block.getBlock().getBlockId()).setNumBytes(length).build()).await();
    return block.getBlock().getBlockId();
  }

  static Configuration conf() {
    Configuration conf = new Configuration(false);
    conf.setLong(NameNodeConfigKeys.CHECKPOINT_TXNS_KEY, Long.MAX_VALUE / 2);
    return conf;
  }

  @Override
  public void close() throws IOException {
    fs.close();
  }
}
