package io.fffs.minicluster.ha;

import io.fffs.client.rpc.NamenodeClient;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.FileStatusProto;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** One client's changes in its own directory, each answer checked; the names its directory must hold. */
final class MetadataStorm extends StormClient {
  final NamenodeClient nn;
  final TreeSet<String> model = new TreeSet<>();
  final AtomicInteger acknowledged = new AtomicInteger();

  MetadataStorm(int client, NamenodeClient nn, AtomicBoolean stop, CountDownLatch warmedUp) {
    super(client, stop, warmedUp);
    this.nn = nn;
  }

  String dir() {
    return "/storm/c" + client;
  }

  @Override
  void work() throws Exception {
    for (int n = 0; !stop.get(); n++) {
      String file = dir() + "/f" + n;
      FileStatusProto created = nn.create(file, 0644, "client-" + client, false, true, 1, 1 << 20, null);
      check(created != null && created.getPath().equals(file), "create " + file + " answered " + created);
      nn.complete(file, created.getInodeId(), "client-" + client, null);
      model.add("f" + n);
      if (n % 3 == 1) {
        check(nn.rename(file, dir() + "/r" + n), "rename of " + file + " answered false");
        model.remove("f" + n);
        model.add("r" + n);
      }
      if (n % 5 == 2) {
        String name = model.contains("f" + n) ? "f" + n : "r" + n;
        check(nn.delete(dir() + "/" + name, false), "delete of " + name + " answered false");
        model.remove(name);
      }
      if (acknowledged.incrementAndGet() == 20) {
        warmedUp.countDown();
      }
    }
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }
}
