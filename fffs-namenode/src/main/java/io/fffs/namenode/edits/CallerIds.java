package io.fffs.namenode.edits;

import org.apache.hadoop.ipc.Server;

/**
 * The Hadoop IPC ids of the call being served on this thread, logged with the change it makes so that a retry of the
 * call after a restart or failover is answered rather than made again.
 */
public final class CallerIds {
  private CallerIds() {}

  /** The client id (empty for the NameNode's own changes, or one too long to log). */
  public static byte[] clientId() {
    byte[] id = Server.getClientId();
    return id == null || id.length > 255 ? new byte[0] : id;
  }

  public static int callId() {
    return Server.getCallId();
  }
}
