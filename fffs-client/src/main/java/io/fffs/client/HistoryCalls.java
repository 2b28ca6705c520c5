package io.fffs.client;

import io.fffs.client.errors.ClientErrors;
import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.history.MomentSet;
import io.fffs.common.history.RetentionRule;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.CollectHistoryResponseProto;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.GetRetentionResponseProto;
import io.fffs.common.proto.HistoryProtos.PinProto;
import io.fffs.common.time.TemporalPath;
import io.fffs.common.time.TimeSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.hadoop.fs.Path;

/**
 * The bounded-history calls of {@link FreezeFrameFileSystem} (docs/history.md): retention rules, pins, garbage
 * collection, diff, usage and restore, each one NameNode call with its errors translated for Hadoop code.
 */
final class HistoryCalls {
  private final FffsClient client;
  private final UnaryOperator<Path> qualify;

  HistoryCalls(FffsClient client, UnaryOperator<Path> qualify) {
    this.client = client;
    this.qualify = qualify;
  }

  private NamenodeClient nn() {
    return client.namenode();
  }

  private Path qualify(Path path) {
    return qualify.apply(path);
  }

  void setRetention(Path dir, RetentionRule rule) throws IOException {
    String plain = client.writable(qualify(dir), "set the retention of");
    ClientErrors.translating(() -> {
      nn().setRetention(plain, rule);
      return null;
    });
  }

  RetentionStatus getRetention(Path path) throws IOException {
    String plain = client.writable(qualify(path), "ask the retention of");
    GetRetentionResponseProto r = ClientErrors.translating(() -> nn().getRetention(plain));
    return new RetentionStatus(RetentionRule.fromProto(r.getRule()), r.getSetOn(),
        r.hasOwnRule() ? RetentionRule.fromProto(r.getOwnRule()) : null, r.getHorizonMicros(),
        r.getWindowStartMicros(), MomentSet.fromProto(r.getKept()));
  }

  Pin pin(Path path, String name) throws IOException {
    TemporalPath temporal = client.temporal(qualify(path));
    return pin(temporal.plainPath(), temporal.timeSpec(), name);
  }

  Pin pin(Path path, TimeSpec time, String name) throws IOException {
    String plain = FffsClient.plain(client.temporal(qualify(path)));
    PinProto pin = ClientErrors.translating(() -> nn().pin(plain, time, name));
    return Pin.fromProto(pin);
  }

  void unpin(String name) throws IOException {
    ClientErrors.translating(() -> {
      nn().unpin(name);
      return null;
    });
    client.forgetPin(name);
  }

  List<Pin> listPins(Path path) throws IOException {
    String plain = FffsClient.plain(client.temporal(qualify(path)));
    List<Pin> pins = new ArrayList<>();
    for (PinProto pin : ClientErrors.translating(() -> nn().listPins(plain))) {
      pins.add(Pin.fromProto(pin));
    }
    return pins;
  }

  Pin getPin(String name) throws IOException {
    return Pin.fromProto(ClientErrors.translating(() -> nn().getPin(name)));
  }

  long[] collectHistory() throws IOException {
    CollectHistoryResponseProto r = ClientErrors.translating(() -> nn().collectHistory());
    return new long[] {r.getInodesRemoved(), r.getVersionsDropped(), r.getNamesDropped()};
  }

  List<HistoryDifference> diff(Path path, TimeSpec from, TimeSpec to) throws IOException {
    String plain = FffsClient.plain(client.temporal(qualify(path)));
    var response = ClientErrors.translating(() -> nn().historyDiff(plain, from, to, Integer.MAX_VALUE));
    List<HistoryDifference> differences = new ArrayList<>();
    for (var entry : response.getEntriesList()) {
      differences.add(new HistoryDifference(HistoryDifference.Kind.valueOf(entry.getKind().name()),
          entry.getPath(), entry.hasTarget() ? entry.getTarget() : null, entry.getLengthBefore(),
          entry.getLengthAfter()));
    }
    return differences;
  }

  long[] restore(Path path, Path dst) throws IOException {
    TemporalPath source = client.temporal(qualify(path));
    return restore(source.plainPath(), source.timeSpec(), dst);
  }

  long[] restore(Path path, TimeSpec time, Path dst) throws IOException {
    String plain = FffsClient.plain(client.temporal(qualify(path)));
    String target = dst == null ? null : client.writable(qualify(dst), "restore to");
    var r = ClientErrors.translating(() -> nn().restore(plain, time, target));
    return new long[] {r.getFiles(), r.getDirectories(), r.getBytes()};
  }

  TimeSpec timeOf(Path path) throws IOException {
    return client.temporal(qualify(path)).timeSpec();
  }

  HistoryUsage historyUsage(Path path) throws IOException {
    String plain = client.writable(qualify(path), "measure the history of");
    var r = ClientErrors.translating(() -> nn().historyUsage(plain));
    return new HistoryUsage(r.getFiles(), r.getDirectories(), r.getBytesNow(), r.getVersionsKept(),
        r.getPastOnlyInodes(), r.getPastOnlyBytes());
  }
}
