package io.fffs.datanode.store;

/**
 * What this DataNode is in a block's write pipeline ({@link BlockStore#openReplica}): PRIMARY stamps entries
 * itself; FOLLOWER applies the primary's stamps and answers system times only up to its frontier; STALE was left
 * out (it misses entries): it answers system times only up to its last entry, and refuses the latest state and
 * user times.
 */
public enum ReplicaRole {
  PRIMARY,
  FOLLOWER,
  STALE
}
