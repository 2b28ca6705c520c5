package io.fffs.datanode.store;

/** {@link CrashRecoveryTest} again, with segment files written through the page cache instead of O_DIRECT. */
class CrashRecoveryPageCacheTest extends CrashRecoveryTest {
  @Override
  PersistMode mode() {
    return PersistMode.PAGE_CACHE;
  }
}
