package io.fffs.client.data;

import java.io.IOException;

/** A short-circuit copy that cannot be trusted or made: the read goes on through the data port instead. */
final class ShortCircuitStale extends IOException {
  private static final long serialVersionUID = 1L;

  ShortCircuitStale(String message) {
    super(message);
  }

  ShortCircuitStale(String message, Throwable cause) {
    super(message, cause);
  }
}
