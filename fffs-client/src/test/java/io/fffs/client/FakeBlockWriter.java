package io.fffs.client;

import io.fffs.client.data.BlockWriter;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.time.HlcTimestamp;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * An in-process block writer for the stream's failover and resend tests: acknowledges the bytes the test sets,
 * flushes unless told to fail, and leaves its followers as survivors when abandoned; a subclass says what a write does.
 */
abstract class FakeBlockWriter implements BlockWriter {
  final List<DatanodeIdProto> members;
  final List<Long> offsets = new ArrayList<>();
  long acknowledged;
  IOException flushFailure;

  FakeBlockWriter(List<DatanodeIdProto> members) {
    this.members = members;
  }

  @Override
  public long flush() throws IOException {
    if (flushFailure != null) {
      throw flushFailure;
    }
    return 0;
  }

  @Override
  public long acknowledgedBytes() {
    return acknowledged;
  }

  @Override
  public HlcTimestamp lastEntryHlc() {
    return HlcTimestamp.ZERO;
  }

  @Override
  public List<DatanodeIdProto> replicas() {
    return members;
  }

  @Override
  public List<DatanodeIdProto> abandon() {
    return members.subList(1, members.size());
  }

  @Override
  public void close() throws IOException {
  }
}
