package io.fffs.datanode.store.history;

import io.fffs.common.history.MomentSet;
import java.util.NavigableMap;

/**
 * What the NameNode's last garbage-collection pass says each block must keep (docs/history.md): the moments at which
 * a kept version of a file lists it. A block below {@code nextBlockId} that the table does not list is garbage.
 *
 * @param generation the pass's HLC (packed): later passes have higher ones
 */
public record RetentionTable(long generation, long nextBlockId, NavigableMap<Long, MomentSet> blocks) {}
