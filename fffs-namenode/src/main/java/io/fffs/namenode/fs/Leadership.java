package io.fffs.namenode.fs;

import io.fffs.common.error.FffsException;
import io.fffs.common.time.TimeSpec;

/** Whether a NameNode of a highly available cluster may change the namespace now: only the ready leader may. */
public interface Leadership {
  /** Returns if this NameNode leads and has applied every committed op; else {@code NOT_LEADER} naming the leader. */
  void checkLeader(String what) throws FffsException;

  /**
   * Returns if this NameNode may answer a query of the namespace at {@code time}: any NameNode (a follower if it
   * serves follower reads) a system time below the frontier of the committed ops it applied, where its answer is the
   * leader's; other times as {@link #checkLatest}; else {@code NOT_LEADER} naming the leader.
   */
  default void checkReadable(TimeSpec time, String what) throws FffsException {
    checkLeader(what);
  }

  /**
   * Returns if this NameNode may answer a query of the latest state: the leader while it knows no other can have
   * been elected (a Raft leader's read lease); else {@code NOT_LEADER}.
   */
  default void checkLatest(String what) throws FffsException {
    checkLeader(what);
  }
}
