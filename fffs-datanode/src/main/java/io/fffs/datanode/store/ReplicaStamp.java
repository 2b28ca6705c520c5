package io.fffs.datanode.store;

/**
 * The stamps a follower applies an entry at, as its primary gave them, so that every replica's log holds the same
 * entries at the same HLCs (packed). {@code createHlc} is the primary's CREATE entry when the write created the
 * block (0: none); {@code lengthAfter} is checked against what the follower computes, not trusted;
 * {@code frontierHlc} is the primary's clock when it answered, above which every later entry of the block is
 * stamped.
 */
public record ReplicaStamp(long entryHlc, long createHlc, long userTime, long lengthAfter, long frontierHlc) {}
