package io.fffs.namenode.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.NamenodeEditsProtos.AddBlockOp;
import io.fffs.common.proto.NamenodeEditsProtos.CompleteOp;
import io.fffs.common.proto.NamenodeEditsProtos.CreateOp;
import io.fffs.common.proto.NamenodeEditsProtos.DeleteOp;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.proto.NamenodeEditsProtos.MkdirsOp;
import io.fffs.common.proto.NamenodeEditsProtos.RenameOp;
import io.fffs.common.proto.NamenodeEditsProtos.SetPermissionOp;
import io.fffs.common.time.HlcTimestamp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NamespaceImageTest {
  private static final long START_MICROS = 1_763_719_200_000_000L;

  @TempDir
  Path dir;
  private Namespace namespace;
  private NamespaceApplier applier;
  private long micros = START_MICROS;

  @BeforeEach
  void format() {
    namespace = Namespace.format("cluster-7", "admin", "supergroup", (short) 0755);
    applier = new NamespaceApplier(namespace);
  }

  private HlcTimestamp apply(EditOpProto op) {
    micros += 1_000;
    HlcTimestamp stamp = HlcTimestamp.of(micros, 0);
    applier.apply(op, stamp);
    return stamp;
  }

  /**
   * A history with every kind of entry an image holds: directories, a closed file with blocks, an open file with a
   * lease and a user-time plugin, a renamed file (a tombstone and a new name), a deleted one and a permission change.
   */
  private HlcTimestamp buildHistory() {
    long dataDir = namespace.allocateInodeId();
    apply(EditOpProto.newBuilder().setMkdirs(MkdirsOp.newBuilder().setPath("/data").addInodeIds(dataDir)
        .setPermission(0755).setOwner("alice").setGroup("staff")).build());
    long closed = namespace.allocateInodeId();
    apply(create("/data/closed", closed, null));
    long block = namespace.allocateBlockId();
    apply(EditOpProto.newBuilder().setAddBlock(AddBlockOp.newBuilder().setInodeId(closed).setBlockId(block)
        .setDatanodeUuid("dn-1")).build());
    apply(EditOpProto.newBuilder().setComplete(CompleteOp.newBuilder().setInodeId(closed).setLastBlockId(block)
        .setLastBlockLength(4_096)).build());
    long open = namespace.allocateInodeId();
    apply(create("/data/open", open, "sensor-clock"));
    apply(EditOpProto.newBuilder().setRename(RenameOp.newBuilder().setSrc("/data/closed").setDst("/data/moved"))
        .build());
    long doomed = namespace.allocateInodeId();
    apply(create("/doomed", doomed, null));
    apply(EditOpProto.newBuilder().setDelete(DeleteOp.newBuilder().setPath("/doomed")).build());
    return apply(EditOpProto.newBuilder().setSetPermission(SetPermissionOp.newBuilder().setPath("/data")
        .setPermission(0700)).build());
  }

  private static EditOpProto create(String path, long inodeId, String plugin) {
    CreateOp.Builder op = CreateOp.newBuilder().setPath(path).setInodeId(inodeId).setPermission(0644)
        .setOwner("alice").setGroup("staff").setReplication(1).setBlockSize(1 << 20).setClientName("writer");
    if (plugin != null) {
      op.setUserTimePlugin(plugin);
    }
    return EditOpProto.newBuilder().setCreate(op).build();
  }

  @Test
  void anImageLoadsBackTheWholeHistory() throws IOException {
    HlcTimestamp last = buildHistory();
    Path image = NamespaceImage.save(namespace, 42, last, dir);

    assertThat(image.getFileName().toString()).isEqualTo("fsimage_00000000000000000042");
    assertThat(dir.resolve("fsimage_00000000000000000042.tmp")).doesNotExist();
    NamespaceImage.Loaded loaded = NamespaceImage.load(image);
    assertThat(loaded.lastTxid).isEqualTo(42);
    assertThat(loaded.lastHlc).isEqualTo(last);
    Namespace copy = loaded.namespace;
    assertThat(copy.clusterId()).isEqualTo("cluster-7");
    assertThat(copy.nextInodeId()).isEqualTo(namespace.nextInodeId());
    assertThat(copy.nextBlockId()).isEqualTo(namespace.nextBlockId());
    assertThat(copy.inodeCount()).isEqualTo(namespace.inodeCount());
    for (Inode inode : namespace.inodes()) {
      assertSame(inode, copy.inode(inode.id()));
    }
    // Lookups in the past give the same answers: the deleted file and the old name of the renamed one.
    long beforeDelete = Namespace.limitForMicros(last.physicalMicros() - 1_500);
    assertThat(copy.resolve("/doomed", beforeDelete)).isNotNull();
    assertThat(copy.resolve("/doomed", Namespace.LATEST)).isNull();
    assertThat(copy.resolve("/data/closed", Namespace.LATEST)).isNull();
    assertThat(copy.resolve("/data/moved", Namespace.LATEST).latest().length()).isEqualTo(4_096);
    assertThat(copy.resolve("/data/open", Namespace.LATEST).latest().leaseHolder()).isEqualTo("writer");
    assertThat(copy.resolve("/data/open", Namespace.LATEST).latest().userTimePlugin()).isEqualTo("sensor-clock");
  }

  private static void assertSame(Inode expected, Inode actual) {
    assertThat(actual).as("inode %d", expected.id()).isNotNull();
    assertThat(actual.isDirectory()).isEqualTo(expected.isDirectory());
    assertThat(actual.states().size()).isEqualTo(expected.states().size());
    for (int i = 0; i < expected.states().size(); i++) {
      assertThat(actual.states().hlc(i)).isEqualTo(expected.states().hlc(i));
      assertThat(actual.states().value(i)).isEqualTo(expected.states().value(i));
    }
    assertThat(actual.children().keySet()).isEqualTo(expected.children().keySet());
    for (Map.Entry<String, ChildHistory> child : expected.children().entrySet()) {
      ChildHistory copy = actual.children().get(child.getKey());
      assertThat(copy.size()).isEqualTo(child.getValue().size());
      for (int i = 0; i < copy.size(); i++) {
        assertThat(copy.hlc(i)).isEqualTo(child.getValue().hlc(i));
        assertThat(copy.inodeId(i)).isEqualTo(child.getValue().inodeId(i));
      }
    }
  }

  @Test
  void aFreshlyFormattedNamespaceRoundTrips() throws IOException {
    Namespace copy = NamespaceImage.load(NamespaceImage.save(namespace, 0, HlcTimestamp.ZERO, dir)).namespace;
    assertThat(copy.inodeCount()).isEqualTo(1);
    assertThat(copy.root().latest()).isEqualTo(namespace.root().latest());
    assertThat(copy.nextInodeId()).isEqualTo(Namespace.ROOT_ID + 1);
  }

  @Test
  void theFileNameCarriesTheTxidAndNothingElseParses() {
    assertThat(NamespaceImage.txidOf(Path.of(NamespaceImage.fileName(1234567)))).isEqualTo(1234567);
    assertThat(NamespaceImage.txidOf(Path.of(NamespaceImage.fileName(Long.MAX_VALUE)))).isEqualTo(Long.MAX_VALUE);
    assertThat(NamespaceImage.txidOf(Path.of("fsimage_42"))).as("not 20 digits").isEqualTo(-1);
    assertThat(NamespaceImage.txidOf(Path.of("fsimage_00000000000000000042.tmp"))).isEqualTo(-1);
    assertThat(NamespaceImage.txidOf(Path.of("fsimage_0000000000000000004x"))).isEqualTo(-1);
    assertThat(NamespaceImage.txidOf(Path.of("edits_00000000000000000042"))).isEqualTo(-1);
  }

  @Test
  void aFlippedByteInARecordIsCorrupt() throws IOException {
    buildHistory();
    Path image = NamespaceImage.save(namespace, 9, HlcTimestamp.of(micros, 0), dir);
    byte[] bytes = Files.readAllBytes(image);
    bytes[bytes.length - 3] ^= 0x40;  // inside the body of the last inode record
    Files.write(image, bytes);
    assertCorrupt(image, "fails its CRC32C");
  }

  @Test
  void aCutImageIsCorrupt() throws IOException {
    buildHistory();
    Path image = NamespaceImage.save(namespace, 9, HlcTimestamp.of(micros, 0), dir);
    byte[] bytes = Files.readAllBytes(image);
    Files.write(image, java.util.Arrays.copyOf(bytes, bytes.length - 5));
    assertCorrupt(image, "ends inside a record");
  }

  @Test
  void bytesAfterTheLastRecordAreCorrupt() throws IOException {
    Path image = NamespaceImage.save(namespace, 1, HlcTimestamp.ZERO, dir);
    Files.write(image, new byte[] {0}, StandardOpenOption.APPEND);
    assertCorrupt(image, "bytes after the last inode record");
  }

  @Test
  void aFileThatIsNoImageIsCorrupt() throws IOException {
    Path image = NamespaceImage.save(namespace, 1, HlcTimestamp.ZERO, dir);
    byte[] bytes = Files.readAllBytes(image);
    bytes[7] = '2';  // FFFSIMG2
    Files.write(image, bytes);
    assertCorrupt(image, "not an FFFS image");
  }

  private static void assertCorrupt(Path image, String why) {
    assertThatThrownBy(() -> NamespaceImage.load(image)).isInstanceOfSatisfying(FffsException.class, e -> {
      assertThat(e.code()).isEqualTo(ErrorCode.CORRUPT);
      assertThat(e.detail()).contains(image.toString()).contains(why);
    });
  }
}
