package io.fffs.namenode.namespace;

import io.fffs.common.proto.HistoryProtos.PinProto;

/**
 * A named moment of a subtree that no retention rule collects: {@code path} (plain, as it was then) stays readable
 * at {@code micros}, and so does everything below it as it was then.
 *
 * @param owner who pinned it (may unpin it, besides the superuser)
 */
public record Pin(String name, String path, long micros, String owner) {
  public PinProto toProto() {
    return PinProto.newBuilder().setName(name).setPath(path).setMicros(micros).setOwner(owner).build();
  }

  public static Pin fromProto(PinProto proto) {
    return new Pin(proto.getName(), proto.getPath(), proto.getMicros(), proto.hasOwner() ? proto.getOwner() : "");
  }
}
