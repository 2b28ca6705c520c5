package io.fffs.http;

import io.fffs.client.errors.CodedException;
import io.fffs.common.error.FffsException;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import org.apache.hadoop.ipc.RemoteException;

/**
 * A gateway keeps its clients between requests, so the first call after a NameNode restart can go out on a
 * connection the old NameNode closed; Hadoop IPC fails that one call and connects afresh for the next. Such a call
 * never reached the new NameNode, so it is made once more.
 */
final class Reconnects {
  private Reconnects() {}

  interface Action<T> {
    T run() throws IOException;
  }

  /** Whether {@code failure} is a lost connection rather than an answer from a server. */
  static boolean isConnectionLoss(IOException failure) {
    if (failure instanceof FffsException || failure instanceof CodedException || failure instanceof RemoteException) {
      return false;
    }
    return failure instanceof EOFException || failure instanceof ConnectException
        || failure instanceof SocketException;
  }

  /** Runs {@code action}, and once more if it failed on a lost connection. */
  static <T> T retryOnce(Action<T> action) throws IOException {
    try {
      return action.run();
    } catch (IOException e) {
      if (!isConnectionLoss(e)) {
        throw e;
      }
      return action.run();
    }
  }
}
