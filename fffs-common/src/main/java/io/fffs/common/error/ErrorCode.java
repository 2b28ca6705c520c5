package io.fffs.common.error;

/**
 * The stable error codes of FFFS. Each maps one-to-one to {@code ErrorCodeProto} (same name, same number), so a
 * server's error reaches a client as the same code. Codes are never renumbered or reused; new ones are appended.
 */
public enum ErrorCode {
  /** A bug or an unexpected state on the server; the message says what broke. */
  INTERNAL(1),
  /** An argument the caller passed cannot be used (bad offset, bad length, bad name, bad record). */
  INVALID_ARGUMENT(2),
  /** A time marker or time text that is clearly meant as a time but does not parse. */
  MALFORMED_TIME(3),
  /** A read at a system time that the cluster's clock has not reached yet, beyond the max offset. */
  TIME_IN_FUTURE(4),
  /** A message whose HLC is further ahead of the local physical clock than the max offset allows. */
  CLOCK_SKEW(5),
  /** A write whose records carry user timestamps lower than those already in the file. */
  USER_TIME_REGRESSION(6),
  /** A mutation addressed to a temporal path: the past is read-only. */
  READ_ONLY_PAST(7),
  /** A write that starts beyond the current end of the block or file. */
  WRITE_BEYOND_EOF(8),
  /** The path, block or node does not exist (at the time asked about). */
  NOT_FOUND(9),
  /** The path exists and the operation would replace it without being asked to. */
  ALREADY_EXISTS(10),
  /** The caller lacks a permission the operation needs. */
  ACCESS_DENIED(11),
  /** Stored or transmitted bytes failed their checksum; the message names the file and offset. */
  CORRUPT(12),
  /** A path component that must be a directory is a file. */
  NOT_A_DIRECTORY(13),
  /** A file operation was addressed to a directory. */
  IS_A_DIRECTORY(14),
  /** A non-recursive delete of a directory that has children. */
  DIRECTORY_NOT_EMPTY(15),
  /** Another client holds the lease (is writing) on the file. */
  LEASE_CONFLICT(16),
  /** A write would grow a block past the configured block size. */
  BLOCK_SIZE_EXCEEDED(17),
  /** The NameNode is in safe mode and refuses mutations until enough DataNodes report. */
  SAFE_MODE(18),
  /** No live, healthy DataNode can take the block. */
  NO_DATANODE(19),
  /** This node has stopped taking writes (for example its clock is off); the message says why. */
  NODE_UNHEALTHY(20),
  /** The operation is not supported by FFFS. */
  UNSUPPORTED(21),
  /** An I/O operation failed on the server (disk full, device error). */
  IO_ERROR(22),
  /**
   * This replica of a block does not hold (or cannot yet vouch for) the state asked for, or refuses an entry that
   * does not continue its log: read another replica.
   */
  REPLICA_STALE(23),
  /**
   * A read of a moment that retention no longer keeps: before the history horizon of the path's rule (or collected
   * under an earlier one) and not a pinned or thinned moment. The message names the horizon and the rule.
   */
  HISTORY_EXPIRED(24),
  /**
   * A write sent under a writer (lease) epoch that lease recovery or a new writer has superseded: another client
   * owns the file now, and nothing of this write was applied. The message says how to write again.
   */
  STALE_WRITER(30),
  /**
   * A node cannot start with a port or directory a setting names (the port is taken, the directory cannot be
   * written): the message names the setting and its value.
   */
  SETTING_UNUSABLE(31),
  /** A DataNode the NameNode's include/exclude host files do not admit ({@code bin/fffs admin -refreshNodes}). */
  NODE_NOT_ALLOWED(35),
  /**
   * A NameNode of a highly available cluster that is not the leader: it neither changes nor answers the namespace.
   * The message names the leader when this NameNode knows it ({@code leader=nn2}); the client's failover proxy
   * tries the others.
   */
  NOT_LEADER(40),
  /**
   * A NameNode that has just taken the lead of a highly available cluster refuses changes until the DataNodes have
   * reported their blocks to it (its safe mode after a failover, usually well under a second): clients of the
   * cluster retry the change shortly, as a failover's pause.
   */
  LEADER_STARTING(41);

  private final int number;

  ErrorCode(int number) {
    this.number = number;
  }

  /** The number used on the wire ({@code ErrorCodeProto}). */
  public int number() {
    return number;
  }

  /** The code with this wire number, or {@link #INTERNAL} for a number this build does not know. */
  public static ErrorCode forNumber(int number) {
    for (ErrorCode code : values()) {
      if (code.number == number) {
        return code;
      }
    }
    return INTERNAL;
  }
}
