package io.fffs.datanode.store;

/**
 * Memory the store holds: the arena's fixed capacity, the page bytes resident now, and the heap bytes of the block
 * logs and page version indexes (their primitive arrays, as allocated).
 */
public record MemoryUsage(long arenaCapacityBytes, long residentPageBytes, long logBytes, long indexBytes,
    long pagesAllocated) {}
