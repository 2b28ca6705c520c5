package io.fffs.namenode.namespace;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What garbage-collection tests compare: reads at moments, and inodes whole. */
final class GcResults {
  private GcResults() {}

  /** What each path reads at each moment: the inode and its length, or none. */
  static Map<String, String> answers(Namespace namespace, Collection<String> paths, long... moments)
      throws io.fffs.common.error.FffsException {
    Map<String, String> answers = new TreeMap<>();
    for (String path : paths) {
      for (long moment : moments) {
        Inode inode = namespace.resolve(NamePaths.components(path), Namespace.limitForMicros(moment));
        answers.put(path + "@" + moment, inode == null ? "none"
            : inode.id() + ":" + inode.stateAt(Namespace.limitForMicros(moment)).length());
      }
    }
    return answers;
  }

  /** Every inode below {@code endId}, whole: states, kept moments, names and their histories. */
  static List<String> dump(Namespace namespace, long endId) {
    List<String> dump = new ArrayList<>();
    for (long id = Namespace.ROOT_ID; id < endId; id++) {
      Inode inode = namespace.inode(id);
      if (inode == null) {
        continue;
      }
      StringBuilder line = new StringBuilder().append(id).append(" kept ").append(inode.kept()).append(" names ")
          .append(inode.keptNames()).append(" states");
      for (int i = 0; i < inode.states().size(); i++) {
        line.append(' ').append(inode.states().hlc(i)).append('=').append(inode.states().value(i).length());
      }
      inode.children().forEach((name, history) -> {
        line.append(' ').append(name).append(':');
        for (int i = 0; i < history.size(); i++) {
          line.append(history.hlc(i)).append('>').append(history.inodeId(i)).append(',');
        }
      });
      dump.add(line.toString());
    }
    return dump;
  }
}
