package io.fffs.common.security;

import org.apache.hadoop.conf.Configuration;

/** Block access tokens: read by the NameNode (issues, rolls keys) and the DataNode (checks). */
public final class BlockTokenConfigKeys {
  private BlockTokenConfigKeys() {}

  /**
   * The NameNode issues tokens and DataNodes check them. A DataNode follows its NameNode's setting; a DataNode with
   * this false checks nothing (only for a DataNode run without a NameNode, as in store tests).
   */
  public static final String ENABLE_KEY = "fffs.security.block-token.enable";
  public static final boolean ENABLE_DEFAULT = true;

  /** How long a token is valid after the NameNode issued it. */
  public static final String LIFETIME_KEY = "fffs.security.block-token.lifetime";
  public static final long LIFETIME_DEFAULT_MS = 10 * 60 * 1000L;

  /** How long a key signs tokens before the next one takes over. */
  public static final String KEY_UPDATE_INTERVAL_KEY = "fffs.security.block-token.key-update-interval";
  public static final long KEY_UPDATE_INTERVAL_DEFAULT_MS = 10 * 60 * 60 * 1000L;

  public static boolean enabled(Configuration conf) {
    return conf.getBoolean(ENABLE_KEY, ENABLE_DEFAULT);
  }

  public static long lifetimeMillis(Configuration conf) {
    return positive(conf, LIFETIME_KEY, conf.getTimeDuration(LIFETIME_KEY, LIFETIME_DEFAULT_MS,
        java.util.concurrent.TimeUnit.MILLISECONDS));
  }

  public static long keyUpdateIntervalMillis(Configuration conf) {
    return positive(conf, KEY_UPDATE_INTERVAL_KEY, conf.getTimeDuration(KEY_UPDATE_INTERVAL_KEY,
        KEY_UPDATE_INTERVAL_DEFAULT_MS, java.util.concurrent.TimeUnit.MILLISECONDS));
  }

  private static long positive(Configuration conf, String key, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException(key + " must be positive, not " + conf.get(key));
    }
    return value;
  }
}
