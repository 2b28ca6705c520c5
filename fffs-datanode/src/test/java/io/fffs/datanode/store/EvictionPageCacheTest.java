package io.fffs.datanode.store;

/** {@link EvictionTest} again, with segment files written through the page cache instead of O_DIRECT. */
class EvictionPageCacheTest extends EvictionTest {
  @Override
  PersistMode mode() {
    return PersistMode.PAGE_CACHE;
  }
}
