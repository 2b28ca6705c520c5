package io.fffs.client;

import io.fffs.common.proto.HistoryProtos.PinProto;
import io.fffs.common.time.TemporalPath;
import io.fffs.common.time.TimeSpec;
import io.fffs.common.time.TimeText;

/**
 * A named moment no retention rule collects: {@code path} (as it was then) and everything below it stay readable at
 * {@code time}, also through the path marker {@code @pin-<name>}.
 *
 * @param path plain absolute path, as it was at the moment
 * @param owner who pinned it
 */
public record Pin(String name, String path, TimeSpec time, String owner) {
  static Pin fromProto(PinProto proto) {
    return new Pin(proto.getName(), proto.getPath(), TimeSpec.system(proto.getMicros()),
        proto.hasOwner() ? proto.getOwner() : "");
  }

  /** The marker that reads this pin by name, {@code @pin-<name>}. */
  public String marker() {
    return TemporalPath.pinMarker(name);
  }

  /** {@code name  path@s…  ISO-time  owner}, as {@code bin/fffs history pins} prints it. */
  @Override
  public String toString() {
    return name + "\t" + path + time.toMarker() + "\t" + TimeText.isoMicros(time.micros()) + "\t" + owner;
  }
}
