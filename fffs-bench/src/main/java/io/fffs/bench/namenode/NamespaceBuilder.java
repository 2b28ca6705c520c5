package io.fffs.bench.namenode;

import io.fffs.common.proto.NamenodeEditsProtos.CreateOp;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.MkdirsOp;
import io.fffs.common.proto.NamenodeEditsProtos.SetTimesOp;
import io.fffs.common.time.HlcTimestamp;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.namespace.NamespaceApplier;

/** Builds namespaces for the NameNode benchmarks through the one mutation path, with synthetic HLCs. */
final class NamespaceBuilder {
  final Namespace namespace = Namespace.format("bench", "bench", "bench", (short) 0755);
  private final NamespaceApplier applier = new NamespaceApplier(namespace);
  private long physicalMicros = 1_763_719_200_000_000L;

  /** The HLC the next op gets: 1 µs after the previous one. */
  HlcTimestamp next() {
    return HlcTimestamp.of(++physicalMicros, 0);
  }

  long nowMicros() {
    return physicalMicros;
  }

  void mkdir(String path) {
    applier.apply(EditOpProto.newBuilder().setMkdirs(MkdirsOp.newBuilder().setPath(path)
        .addInodeIds(namespace.allocateInodeId()).setPermission(0755).setOwner("bench").setGroup("bench"))
        .build(), next());
  }

  void createFile(String path) {
    applier.apply(EditOpProto.newBuilder().setCreate(CreateOp.newBuilder().setPath(path)
        .setInodeId(namespace.allocateInodeId()).setPermission(0644).setOwner("bench").setGroup("bench")
        .setReplication(1).setBlockSize(64L << 20).setClientName("bench")).build(), next());
  }

  /** One more version of {@code path}'s inode. */
  void touch(String path, long mtime) {
    applier.apply(EditOpProto.newBuilder().setSetTimes(SetTimesOp.newBuilder().setPath(path).setMtime(mtime)
        .setAtime(-1)).build(), next());
  }
}
