package io.fffs.datanode.store;

/** {@link ScrubberTest} again, with segment files written through the page cache instead of O_DIRECT. */
class ScrubberPageCacheTest extends ScrubberTest {
  @Override
  PersistMode mode() {
    return PersistMode.PAGE_CACHE;
  }
}
