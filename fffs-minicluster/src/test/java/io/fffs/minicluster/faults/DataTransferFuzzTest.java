package io.fffs.minicluster.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.DataTransferProtos.OpProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import io.fffs.common.security.BlockTokenConfigKeys;
import io.fffs.common.time.HybridLogicalClock;
import io.fffs.common.time.PhysicalClock;
import io.fffs.common.time.TimeSpec;
import io.fffs.minicluster.MiniFffsCluster;
import io.fffs.protocol.DataTransferConfigKeys;
import io.fffs.protocol.frame.BlockingFrameChannel;
import io.fffs.protocol.frame.Frame;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.Comparator;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.thirdparty.protobuf.InvalidProtocolBufferException;

/**
 * Whatever request a caller sends to a DataNode's data port — any op, with any header the fuzzer builds (missing
 * fields, unknown blocks, impossible offsets, lengths, times, epochs and pipeline members) and any payload — a real
 * DataNode answers it, refuses it with a typed error (never {@code INTERNAL}, the mark of an unexpected exception in
 * our code), or closes a connection whose header lacks a required field; and it stays up: a file written before
 * reads back as it was, through the client. Block tokens are off, so requests reach the handlers rather than stop at
 * the token check; reads and queries may name that file's block, changes never do. One DataNode serves every input,
 * so a failure may need the inputs before it to reproduce. Fuzzed by {@code dev-support/fuzz.sh}.
 */
class DataTransferFuzzTest {
  private static final OpProto[] OPS = OpProto.values();
  /** A request's answer within this, or the input is a finding (a hang). */
  private static final int ANSWER_MILLIS = 20_000;
  private static final Path KEPT = new Path("/kept");
  private static final byte[] CONTENT = new byte[300_000];
  private static final MiniFffsCluster CLUSTER;
  private static final FreezeFrameFileSystem FS;
  private static final InetSocketAddress DATA;
  /** The data port's largest frame. */
  private static final int MAX_FRAME;
  /** A block of {@link #KEPT}: one request in two names it, so requests reach a block that exists. */
  private static final long KEPT_BLOCK;
  /** A moment after {@link #KEPT} was written. */
  private static final TimeSpec WRITTEN;

  static {
    try {
      java.nio.file.Path dir = Files.createTempDirectory("fffs-data-fuzz");
      Configuration conf = new Configuration();
      conf.setBoolean(BlockTokenConfigKeys.ENABLE_KEY, false);
      // A request naming another DataNode (a pipeline member, a transfer target) that does not answer fails soon.
      conf.set(DataTransferConfigKeys.CONNECT_TIMEOUT_KEY, "2s");
      conf.set(DataTransferConfigKeys.RESPONSE_TIMEOUT_KEY, "5s");
      CLUSTER = MiniFffsCluster.builder().baseDir(dir).conf(conf).numDataNodes(1).build();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(dir)));
      FS = CLUSTER.getFileSystem();
      new Random(7).nextBytes(CONTENT);
      try (FSDataOutputStream out = FS.create(KEPT, (short) 1)) {
        out.write(CONTENT);
      }
      KEPT_BLOCK = firstBlockId(conf);
      WRITTEN = TimeSpec.system(FS.currentTime().physicalMicros());
      DATA = CLUSTER.getDataAddress(0);
      MAX_FRAME = DataTransferConfigKeys.maxFrameSize(conf);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long firstBlockId(Configuration conf) throws IOException {
    NamenodeClient nn = NamenodeClient.connect(CLUSTER.getNameNode().rpcAddress(), conf,
        new HybridLogicalClock(PhysicalClock.system(), 250_000));
    try {
      return nn.getBlockLocations(KEPT.toString(), TimeSpec.latest(), 0, Long.MAX_VALUE).getBlocks(0).getBlock()
          .getBlockId();
    } finally {
      nn.close();
    }
  }

  /** At the JVM's exit: the cluster stops and its directory goes. */
  private static void stop(java.nio.file.Path dir) {
    try {
      FS.close();
      CLUSTER.close();
      try (var paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("could not clean up " + dir + ": " + e);
    }
  }

  @FuzzTest(maxDuration = "5m")
  void anyRequestIsAnsweredOrRefusedWithATypedErrorAndTheDataNodeStaysUp(FuzzedDataProvider data)
      throws Exception {
    // Connecting where a request says is the protocol (pipeline members, transfer targets), not a forgery to report.
    BugDetectors.allowNetworkConnections();
    OpProto op = data.pickValue(OPS);
    boolean keptBlock = data.consumeBoolean();
    long hlc = data.consumeLong();
    byte[] payload = data.consumeBytes(data.consumeInt(0, 4096));
    RequestHeaderProto.Builder header;
    try {
      header = RequestHeaderProto.parser().parsePartialFrom(data.consumeRemainingAsBytes()).toBuilder();
    } catch (InvalidProtocolBufferException e) {
      return;  // not a header on the wire: nothing a client would send
    }
    header.setOp(op).setCallId(1);
    if (!header.hasHlc()) {
      header.setHlc(HlcProto.newBuilder().setPacked(hlc));  // else most headers would stop at the decoder
    }
    if (keptBlock && !changes(op)) {
      nameKeptBlock(header);
    }
    if (header.hasWrite() && header.getWrite().getChainTimeoutMs() > 5_000) {
      header.getWriteBuilder().setChainTimeoutMs(5_000);  // its wait for a silent chain member: within the window
    }
    if (changes(op) && namesKeptBlock(header)) {
      return;  // the kept file stays as written: a change to it (a stale replica, say) may rightly refuse its reads
    }
    RequestHeaderProto request = header.buildPartial();
    try (BlockingFrameChannel channel = BlockingFrameChannel.connect(DATA, ANSWER_MILLIS, MAX_FRAME)) {
      channel.send(request, ByteBuffer.wrap(payload));
      Frame<ResponseHeaderProto> answer;
      try {
        answer = channel.receive(ResponseHeaderProto.parser());
      } catch (EOFException closed) {
        assertThat(request.isInitialized()).as("%s: a well-formed request's connection closed unanswered", request)
            .isFalse();
        return;
      }
      answer.release();
      if (answer.header().hasError()) {
        assertThat(FffsException.fromProto(answer.header().getError()).code()).as("%s: %s", request,
            answer.header().getError().getMessage()).isNotEqualTo(ErrorCode.INTERNAL);
      }
    }
    try (FSDataInputStream in = FS.open(KEPT, WRITTEN)) {
      byte[] read = new byte[CONTENT.length];
      in.readFully(0, read);
      assertThat(read).as("the file as it was, after %s", request).isEqualTo(CONTENT);
    }
  }

  private static boolean changes(OpProto op) {
    return op == OpProto.WRITE || op == OpProto.TRUNCATE || op == OpProto.REPLICA_OPEN || op == OpProto.REPLICA_END;
  }

  private static boolean namesKeptBlock(RequestHeaderProto.Builder header) {
    return header.getWrite().getBlockId() == KEPT_BLOCK || header.getTruncate().getBlockId() == KEPT_BLOCK
        || header.getReplicaOpen().getBlockId() == KEPT_BLOCK || header.getReplicaEnd().getBlockId() == KEPT_BLOCK;
  }

  /** Points the request's part for its op, one that changes no block, at a block of {@link #KEPT}. */
  private static void nameKeptBlock(RequestHeaderProto.Builder header) {
    switch (header.getOp()) {
      case READ, LOCAL_READ -> header.getReadBuilder().setBlockId(KEPT_BLOCK);
      case BLOCK_INFO -> header.getBlockInfoBuilder().setBlockId(KEPT_BLOCK);
      case SYNC -> header.getSyncBuilder().addBlockIds(KEPT_BLOCK);
      case TRANSFER_BLOCK -> header.getTransferBlockBuilder().setBlockId(KEPT_BLOCK);
      case BLOCK_CHECKSUM -> header.getBlockChecksumBuilder().setBlockId(KEPT_BLOCK);
      case BLOCK_LOG -> header.getBlockLogBuilder().setBlockId(KEPT_BLOCK);
      default -> { }
    }
  }
}
