package io.fffs.bench.namenode;

import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.RenameOp;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.namespace.NamespaceApplier;

/**
 * A path of {@code depth} directories where each directory has {@code versions} states and each name in the path
 * has about {@code versions} history entries (a sibling renamed away and back), for path-resolution benchmarks.
 */
public final class DeepHistory {
  private final Namespace namespace;
  private final String deepPath;
  private final long middleMicros;

  private DeepHistory(Namespace namespace, String deepPath, long middleMicros) {
    this.namespace = namespace;
    this.deepPath = deepPath;
    this.middleMicros = middleMicros;
  }

  public static DeepHistory build(int depth, int versions) {
    NamespaceBuilder builder = new NamespaceBuilder();
    NamespaceApplier applier = new NamespaceApplier(builder.namespace);
    StringBuilder path = new StringBuilder();
    for (int level = 0; level < depth; level++) {
      path.append("/c").append(level);
      builder.mkdir(path.toString());
    }
    long middle = 0;
    for (int v = 0; v < versions; v++) {
      String dir = "";
      for (int level = 0; level < depth; level++) {
        dir = dir + "/c" + level;
        // A name history entry: move the component away and back (two entries), and a state change.
        applier.apply(EditOpProto.newBuilder().setRename(RenameOp.newBuilder().setSrc(dir).setDst(dir + "x"))
            .build(), builder.next());
        applier.apply(EditOpProto.newBuilder().setRename(RenameOp.newBuilder().setSrc(dir + "x").setDst(dir))
            .build(), builder.next());
        builder.touch(dir, v);
      }
      if (v == versions / 2) {
        middle = builder.nowMicros();
      }
    }
    return new DeepHistory(builder.namespace, path.toString(), middle);
  }

  public Namespace namespace() {
    return namespace;
  }

  public String deepPath() {
    return deepPath;
  }

  public long middleMicros() {
    return middleMicros;
  }
}
