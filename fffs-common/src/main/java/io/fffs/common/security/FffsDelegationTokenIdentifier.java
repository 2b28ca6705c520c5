package io.fffs.common.security;

import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.token.delegation.AbstractDelegationTokenIdentifier;

/**
 * The identifier of an FFFS delegation token: Hadoop's owner, renewer, real user, dates, master key id and
 * sequence number ({@link AbstractDelegationTokenIdentifier}), of kind {@link #KIND}.
 */
public final class FffsDelegationTokenIdentifier extends AbstractDelegationTokenIdentifier {
  public static final Text KIND = new Text("FFFS_DELEGATION_TOKEN");

  /** For decoding (Hadoop finds the class by its kind through ServiceLoader). */
  public FffsDelegationTokenIdentifier() {}

  public FffsDelegationTokenIdentifier(Text owner, Text renewer, Text realUser) {
    super(owner, renewer, realUser);
  }

  @Override
  public Text getKind() {
    return KIND;
  }
}
