package io.fffs.datanode.store;

/** {@link RandomWorkloadTest} again, with segment files written through the page cache instead of O_DIRECT. */
class RandomWorkloadPageCacheTest extends RandomWorkloadTest {
  @Override
  PersistMode mode() {
    return PersistMode.PAGE_CACHE;
  }
}
