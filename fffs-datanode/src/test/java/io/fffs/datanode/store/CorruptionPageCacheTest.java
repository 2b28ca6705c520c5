package io.fffs.datanode.store;

/** {@link CorruptionTest} again, with segment files written through the page cache instead of O_DIRECT. */
class CorruptionPageCacheTest extends CorruptionTest {
  @Override
  PersistMode mode() {
    return PersistMode.PAGE_CACHE;
  }
}
