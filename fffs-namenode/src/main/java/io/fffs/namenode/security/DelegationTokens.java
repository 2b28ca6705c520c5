package io.fffs.namenode.security;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.NamenodeEditsProtos.DelegationKeyOp;
import io.fffs.common.proto.NamenodeEditsProtos.DelegationTokenOp;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.security.FffsDelegationTokenIdentifier;
import io.fffs.namenode.fs.Leadership;
import io.fffs.namenode.fs.Namesystem;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.token.SecretManager.InvalidToken;
import org.apache.hadoop.security.token.delegation.AbstractDelegationTokenSecretManager;
import org.apache.hadoop.security.token.delegation.DelegationKey;
import org.apache.hadoop.thirdparty.protobuf.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NameNode's delegation tokens, on Hadoop's {@link AbstractDelegationTokenSecretManager}: it signs, renews,
 * cancels and expires tokens and rolls its master keys; every key and token change is logged in the edit log
 * ({@link Namesystem#logSecret}) and kept in checkpoints, so tokens survive a NameNode restart. Dates follow the
 * system clock, as Hadoop's secret manager reads it.
 *
 * <p>With HA the log is replicated, so every NameNode applies every key and token change. Only the leader runs the
 * secret manager (issues, renews, cancels, rolls keys, expires tokens); a follower authenticates a token from the
 * secrets as logged, so that a client holding one reaches it and is told which NameNode leads. A NameNode taking the
 * lead loads the keys and tokens as logged and starts with a new master key, so the tokens any earlier leader issued
 * or renewed stay valid, and one it cancelled stays cancelled.
 */
public final class DelegationTokens extends AbstractDelegationTokenSecretManager<FffsDelegationTokenIdentifier>
    implements Namesystem.LeadFollower {
  private static final Logger LOG = LoggerFactory.getLogger(DelegationTokens.class);

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
  /** HA: whose lead this follows; null for a single NameNode. */
  private final Leadership leadership;
  /** Whether the secret manager runs here on the secrets as logged (a single NameNode, or the leader once led). */
  private volatile boolean serving;
  /** Set while the logged secrets are loaded: they must be neither logged again nor read through. */
  private volatile boolean loading;

  private DelegationTokens(Configuration conf, Namesystem namesystem) {
    super(millis(conf, KEY_UPDATE_INTERVAL_KEY, KEY_UPDATE_INTERVAL_DEFAULT_MS),
        millis(conf, MAX_LIFETIME_KEY, MAX_LIFETIME_DEFAULT_MS),
        millis(conf, RENEW_INTERVAL_KEY, RENEW_INTERVAL_DEFAULT_MS),
        Math.min(TimeUnit.HOURS.toMillis(1), millis(conf, RENEW_INTERVAL_KEY, RENEW_INTERVAL_DEFAULT_MS)));
    this.namesystem = namesystem;
    this.leadership = namesystem.leadership();
  }

  /**
   * Loads the keys and tokens the namesystem kept, then starts rolling keys and expiring tokens. With HA that
   * happens each time this NameNode takes the lead ({@link #taking}, {@link #leading}).
   */
  public static DelegationTokens start(Configuration conf, Namesystem namesystem) throws IOException {
    DelegationTokens tokens = new DelegationTokens(conf, namesystem);
    if (tokens.leadership == null) {
      tokens.load();
      tokens.startThreads();
      tokens.serving = true;
    } else {
      namesystem.addLeadFollower(tokens);
      if (tokens.leads()) {  // it took the lead before this was told
        tokens.taking();
        tokens.leading();
      }
    }
    return tokens;
  }

  @Override
  public synchronized void taking() throws IOException {
    serving = false;
    if (isRunning()) {
      stopThreads();  // led before: its secrets may have changed since on other NameNodes
    }
    currentTokens.clear();
    allKeys.clear();
    load();
  }

  @Override
  public synchronized void leading() {
    if (serving || !leads()) {
      return;
    }
    try {
      startThreads();  // a new master key, logged, signs the tokens this leader issues
      serving = true;
      LOG.info("Delegation tokens served here: {} keys and {} tokens as logged", allKeys.size(),
          currentTokens.size());
    } catch (IOException | RuntimeException e) {
      LOG.warn("Could not start the delegation-token secret manager as leader: {}", e.toString());
      stopThreads();
    }
  }

  /**
   * Returns if this NameNode may issue, renew or cancel tokens now; else {@code NOT_LEADER} naming the leader, or
   * {@code LEADER_STARTING} while a new leader loads its secrets (clients retry both).
   */
  void checkServing(String what) throws FffsException {
    if (leadership != null) {
      leadership.checkLeader(what);
    }
    if (!serving) {
      throw new FffsException(ErrorCode.LEADER_STARTING, "this NameNode leads but has not yet loaded its"
          + " delegation-token secrets; retry shortly (" + what + ")");
    }
  }

  private boolean leads() {
    try {
      leadership.checkLeader("serve delegation tokens");
      return true;
    } catch (FffsException e) {
      return false;
    }
  }

  /** Loads the keys and live tokens as logged (the secret manager's threads are not running). */
  private void load() throws IOException {
    loading = true;
    try {
      long now = System.currentTimeMillis();
      List<DelegationKeyOp> keys = namesystem.readSecrets(state -> List.copyOf(state.keys()));
      List<DelegationTokenOp> tokens = namesystem.readSecrets(state -> List.copyOf(state.tokens()));
      for (DelegationKeyOp key : keys) {
        if (key.getExpiryDate() >= now) {
          addKey(new DelegationKey(key.getKeyId(), key.getExpiryDate(), key.getKey().toByteArray()));
        }
      }
      for (DelegationTokenOp token : tokens) {
        if (token.getRenewDate() >= now) {
          addPersistedDelegationToken(identifier(token.getIdentifier()), token.getRenewDate());
        }
      }
    } finally {
      loading = false;
    }
  }

  /**
   * HA: a token a NameNode not leading does not know is sent to the leader ({@code NOT_LEADER}, which Hadoop's IPC
   * passes to the client as the cause of the refusal): the follower may not have applied it yet, and only the leader
   * may say that a token is not valid.
   */
  @Override
  public byte[] retrievePassword(FffsDelegationTokenIdentifier ident) throws InvalidToken {
    try {
      return super.retrievePassword(ident);
    } catch (InvalidToken unknown) {
      if (leadership != null) {
        try {
          leadership.checkLeader("authenticate a delegation token it does not know");
        } catch (FffsException notLeader) {
          throw (InvalidToken) new InvalidToken(unknown.getMessage()).initCause(notLeader);
        }
      }
      throw unknown;
    }
  }

  /**
   * HA: a NameNode not serving (a follower, or a deposed leader) answers from the secrets as logged, which the
   * leader's issues, renewals and cancellations reach through the replicated log.
   */
  @Override
  protected DelegationTokenInformation getTokenInfo(FffsDelegationTokenIdentifier ident) {
    if (leadership == null || loading || serving && leads()) {
      return super.getTokenInfo(ident);
    }
    byte[] bytes = ident.getBytes();
    try {
      return namesystem.readSecrets(state -> {
        DelegationTokenOp token = state.token(ByteString.copyFrom(bytes));
        DelegationKeyOp key = token == null ? null : state.key(ident.getMasterKeyId());
        return key == null ? null : new DelegationTokenInformation(token.getRenewDate(),
            createPassword(bytes, createSecretKey(key.getKey().toByteArray())));
      });
    } catch (IOException e) {
      LOG.warn("Could not read the logged delegation tokens: {}", e.toString());
      return null;
    }
  }

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
      LOG.warn("Could not log {}: {}", op, e.toString());
    }
  }
}
