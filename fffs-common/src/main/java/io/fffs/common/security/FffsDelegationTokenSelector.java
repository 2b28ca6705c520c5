package io.fffs.common.security;

import org.apache.hadoop.security.token.delegation.AbstractDelegationTokenSelector;

/** Picks the FFFS delegation token for a NameNode's address from a user's credentials (Hadoop IPC's SASL). */
public final class FffsDelegationTokenSelector
    extends AbstractDelegationTokenSelector<FffsDelegationTokenIdentifier> {
  public FffsDelegationTokenSelector() {
    super(FffsDelegationTokenIdentifier.KIND);
  }
}
