package io.fffs.datanode.store;

/**
 * {@link MultiThreadedPersistenceTest} again, with segment files written through the page cache instead of
 * O_DIRECT.
 */
class MultiThreadedPersistencePageCacheTest extends MultiThreadedPersistenceTest {
  @Override
  PersistMode mode() {
    return PersistMode.PAGE_CACHE;
  }
}
