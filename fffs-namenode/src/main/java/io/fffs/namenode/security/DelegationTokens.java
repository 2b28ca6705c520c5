package io.fffs.namenode.security;

import io.fffs.common.proto.NamenodeEditsProtos.DelegationKeyOp;
import io.fffs.common.proto.NamenodeEditsProtos.DelegationTokenOp;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.security.FffsDelegationTokenIdentifier;
import io.fffs.namenode.fs.Namesystem;
import io.fffs.namenode.namespace.DelegationState;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.token.delegation.AbstractDelegationTokenSecretManager;
import org.apache.hadoop.security.token.delegation.DelegationKey;
import org.apache.hadoop.thirdparty.protobuf.ByteString;

/**
 * The NameNode's delegation tokens, on Hadoop's {@link AbstractDelegationTokenSecretManager}: it signs, renews,
 * cancels and expires tokens and rolls its master keys; every key and token change is logged in the edit log
 * ({@link Namesystem#logSecret}) and kept in checkpoints, so tokens survive a NameNode restart. Dates follow the
 * system clock, as Hadoop's secret manager reads it.
 */
public final class DelegationTokens extends AbstractDelegationTokenSecretManager<FffsDelegationTokenIdentifier> {
  /** How often the master key that signs new tokens is replaced. */
  public static final String KEY_UPDATE_INTERVAL_KEY = "fffs.namenode.delegation.key.update-interval";
  public static final long KEY_UPDATE_INTERVAL_DEFAULT_MS = TimeUnit.DAYS.toMillis(1);
  /** A token not renewed for this long expires. */
  public static final String RENEW_INTERVAL_KEY = "fffs.namenode.delegation.token.renew-interval";
  public static final long RENEW_INTERVAL_DEFAULT_MS = TimeUnit.DAYS.toMillis(1);
  /** No token lives longer than this, renewed or not. */
  public static final String MAX_LIFETIME_KEY = "fffs.namenode.delegation.token.max-lifetime";
  public static final long MAX_LIFETIME_DEFAULT_MS = TimeUnit.DAYS.toMillis(7);

  private final Namesystem namesystem;

  private DelegationTokens(Configuration conf, Namesystem namesystem) {
    super(millis(conf, KEY_UPDATE_INTERVAL_KEY, KEY_UPDATE_INTERVAL_DEFAULT_MS),
        millis(conf, MAX_LIFETIME_KEY, MAX_LIFETIME_DEFAULT_MS),
        millis(conf, RENEW_INTERVAL_KEY, RENEW_INTERVAL_DEFAULT_MS),
        Math.min(TimeUnit.HOURS.toMillis(1), millis(conf, RENEW_INTERVAL_KEY, RENEW_INTERVAL_DEFAULT_MS)));
    this.namesystem = namesystem;
  }

  /** Loads the keys and tokens the namesystem kept, then starts rolling keys and expiring tokens. */
  public static DelegationTokens start(Configuration conf, Namesystem namesystem) throws IOException {
    DelegationTokens tokens = new DelegationTokens(conf, namesystem);
    DelegationState kept = namesystem.delegationState();
    long now = System.currentTimeMillis();
    for (DelegationKeyOp key : kept.keys()) {
      if (key.getExpiryDate() >= now) {
        tokens.loading = true;
        try {
          tokens.addKey(new DelegationKey(key.getKeyId(), key.getExpiryDate(), key.getKey().toByteArray()));
        } finally {
          tokens.loading = false;
        }
      }
    }
    for (DelegationTokenOp token : kept.tokens()) {
      if (token.getRenewDate() >= now) {
        tokens.addPersistedDelegationToken(identifier(token.getIdentifier()), token.getRenewDate());
      }
    }
    tokens.startThreads();
    return tokens;
  }

  private volatile boolean loading;

  private static long millis(Configuration conf, String key, long defaultMillis) {
    return conf.getTimeDuration(key, defaultMillis, TimeUnit.MILLISECONDS);
  }

  private static FffsDelegationTokenIdentifier identifier(ByteString bytes) throws IOException {
    FffsDelegationTokenIdentifier id = new FffsDelegationTokenIdentifier();
    id.readFields(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    return id;
  }

  @Override
  public FffsDelegationTokenIdentifier createIdentifier() {
    return new FffsDelegationTokenIdentifier();
  }

  @Override
  protected void storeNewMasterKey(DelegationKey key) throws IOException {
    if (!loading) {
      namesystem.logSecret(EditOpProto.newBuilder().setDelegationKey(DelegationKeyOp.newBuilder()
          .setKeyId(key.getKeyId()).setExpiryDate(key.getExpiryDate())
          .setKey(ByteString.copyFrom(key.getEncodedKey()))).build());
    }
  }

  @Override
  protected void removeStoredMasterKey(DelegationKey key) {
    logQuietly(EditOpProto.newBuilder().setDelegationKey(DelegationKeyOp.newBuilder().setKeyId(key.getKeyId())
        .setExpiryDate(key.getExpiryDate()).setRemoved(true)).build());
  }

  @Override
  protected void storeNewToken(FffsDelegationTokenIdentifier id, long renewDate) throws IOException {
    namesystem.logSecret(tokenOp(id, renewDate, false));
  }

  @Override
  protected void updateStoredToken(FffsDelegationTokenIdentifier id, long renewDate) throws IOException {
    namesystem.logSecret(tokenOp(id, renewDate, false));
  }

  @Override
  protected void removeStoredToken(FffsDelegationTokenIdentifier id) throws IOException {
    namesystem.logSecret(tokenOp(id, 0, true));
  }

  private static EditOpProto tokenOp(FffsDelegationTokenIdentifier id, long renewDate, boolean removed) {
    return EditOpProto.newBuilder().setDelegationToken(DelegationTokenOp.newBuilder()
        .setIdentifier(ByteString.copyFrom(id.getBytes())).setRenewDate(renewDate).setRemoved(removed)).build();
  }

  /** For removals Hadoop's secret manager does not let fail: a key left in the log is pruned at the next start. */
  private void logQuietly(EditOpProto op) {
    try {
      namesystem.logSecret(op);
    } catch (IOException e) {
      org.slf4j.LoggerFactory.getLogger(DelegationTokens.class).warn("Could not log {}: {}", op, e.toString());
    }
  }
}
