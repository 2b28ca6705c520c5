package io.fffs.datanode.server;

/** Told of every write the data server applied (for the DataNode's blockReceived reports). */
@FunctionalInterface
public interface WriteListener {
  /** Called on the store writer thread after the write; must not block. */
  void written(long blockId, long blockLength);
}
