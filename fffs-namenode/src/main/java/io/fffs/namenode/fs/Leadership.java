package io.fffs.namenode.fs;

import io.fffs.common.error.FffsException;

/** Whether a NameNode of a highly available cluster may change the namespace now: only the ready leader may. */
public interface Leadership {
  /** Returns if this NameNode leads and has applied every committed op; else {@code NOT_LEADER} naming the leader. */
  void checkLeader(String what) throws FffsException;
}
