package io.fffs.datanode.store;

import io.fffs.common.time.HlcTimestamp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The simplest possible model of a multi-log: per block, a list of entries; a state is computed by replaying the
 * log from its last create. Lookups are linear scans, independent of the store's binary searches.
 */
final class ReferenceModel {
  enum Op { CREATE, WRITE, TRUNCATE, DELETE }

  /** One accepted mutation. */
  record Entry(Op op, long hlc, long userTime, long offset, byte[] data, long newLength) {}

  private final Map<Long, List<Entry>> logs = new HashMap<>();

  List<Entry> log(long block) {
    return logs.computeIfAbsent(block, b -> new ArrayList<>());
  }

  Map<Long, List<Entry>> logs() {
    return logs;
  }

  private final Map<Long, byte[]> latest = new HashMap<>();

  void add(long block, Entry entry) {
    log(block).add(entry);
    latest.put(block, apply(latest.get(block), entry));
  }

  /** The block's latest bytes, or null if it does not exist now. */
  byte[] current(long block) {
    return latest.get(block);
  }

  /** Drops every entry past the first {@code count} of a block (what a crash may lose). */
  void keep(long block, int count) {
    List<Entry> log = log(block);
    log.subList(count, log.size()).clear();
    latest.put(block, stateAt(block, count - 1));
  }

  long lastUserTime(long block) {
    List<Entry> log = log(block);
    return log.isEmpty() ? 0 : log.get(log.size() - 1).userTime();
  }

  int indexAtSystem(long block, long micros) {
    List<Entry> log = log(block);
    int found = -1;
    for (int i = 0; i < log.size(); i++) {
      if (HlcTimestamp.valueOf(log.get(i).hlc()).physicalMicros() <= micros) {
        found = i;
      }
    }
    return found;
  }

  int indexAtUser(long block, long micros) {
    List<Entry> log = log(block);
    int found = -1;
    for (int i = 0; i < log.size(); i++) {
      if (log.get(i).userTime() <= micros) {
        found = i;
      }
    }
    return found;
  }

  /** The block's bytes after entry {@code index}, or null if it does not exist then. */
  byte[] stateAt(long block, int index) {
    if (index < 0) {
      return null;
    }
    List<Entry> log = log(block);
    byte[] content = null;
    for (int i = 0; i <= index; i++) {
      content = apply(content, log.get(i));
    }
    return content;
  }

  private static byte[] apply(byte[] content, Entry entry) {
    switch (entry.op()) {
      case CREATE:
        return new byte[0];
      case WRITE:
        long end = entry.offset() + entry.data().length;
        byte[] next = end > content.length ? Arrays.copyOf(content, (int) end) : content;
        System.arraycopy(entry.data(), 0, next, (int) entry.offset(), entry.data().length);
        return next;
      case TRUNCATE:
        return Arrays.copyOf(content, (int) entry.newLength());
      default:
        return null;
    }
  }
}
