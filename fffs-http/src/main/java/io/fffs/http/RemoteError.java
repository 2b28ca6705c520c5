package io.fffs.http;

import io.fffs.client.errors.CodedException;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.security.AccessControlException;

/**
 * A failure as WebHDFS sends it: an HTTP status and a {@code RemoteException} body whose {@code javaClassName}
 * lets Hadoop's {@code WebHdfsFileSystem} rethrow the type the {@code FileSystem} contract expects (so a missing
 * file is a {@code FileNotFoundException} there too). The FFFS code travels in the message ({@code "CODE: sentence"})
 * and in an extra {@code code} field. Never a stack trace: an unexpected failure is logged, and the body only says
 * that it happened.
 */
final class RemoteError {
  final int status;
  final String javaClassName;
  final ErrorCode code;
  final String message;

  RemoteError(int status, Class<?> type, ErrorCode code, String message) {
    this.status = status;
    this.javaClassName = type.getName();
    this.code = code;
    this.message = message;
  }

  /** {@code exception}: the simple name, as WebHDFS has it. */
  String exception() {
    return javaClassName.substring(javaClassName.lastIndexOf('.') + 1);
  }

  /** The error for an FFFS code: the status and Hadoop type WebHDFS gives the same condition. */
  static RemoteError of(ErrorCode code, String message) {
    switch (code) {
      case NOT_FOUND:
      case IS_A_DIRECTORY:
        return new RemoteError(404, FileNotFoundException.class, code, message);
      case ACCESS_DENIED:
        return new RemoteError(403, AccessControlException.class, code, message);
      case ALREADY_EXISTS:
        return new RemoteError(403, FileAlreadyExistsException.class, code, message);
      case NOT_A_DIRECTORY:
        return new RemoteError(403, ParentNotDirectoryException.class, code, message);
      case DIRECTORY_NOT_EMPTY:
        return new RemoteError(403, PathIsNotEmptyDirectoryException.class, code, message);
      case READ_ONLY_PAST:
      case LEASE_CONFLICT:
      case SAFE_MODE:
      case WRITE_BEYOND_EOF:
      case USER_TIME_REGRESSION:
      case BLOCK_SIZE_EXCEEDED:
        return new RemoteError(403, FffsException.class, code, message);
      case INVALID_ARGUMENT:
      case MALFORMED_TIME:
      case TIME_IN_FUTURE:
      case CLOCK_SKEW:
        return new RemoteError(400, code == ErrorCode.INVALID_ARGUMENT ? IllegalArgumentException.class
            : FffsException.class, code, message);
      case UNSUPPORTED:
        return new RemoteError(400, UnsupportedOperationException.class, code, message);
      case NO_DATANODE:
      case NODE_UNHEALTHY:
      case LEADER_STARTING:  // a failover's pause: retried shortly
        return new RemoteError(503, FffsException.class, code, message);
      default:
        return new RemoteError(500, FffsException.class, code, message);
    }
  }

  /** A request body larger than its operation accepts: {@code 413}. */
  static final class TooLarge extends FffsException {
    private static final long serialVersionUID = 1L;

    TooLarge(String detail) {
      super(ErrorCode.INVALID_ARGUMENT, detail);
    }
  }

  /** The error to send for a failure of serving a request; {@code null} for one that is not the caller's doing. */
  static RemoteError of(Throwable failure) {
    if (failure instanceof TooLarge) {
      return new RemoteError(413, IllegalArgumentException.class, ErrorCode.INVALID_ARGUMENT, failure.getMessage());
    }
    if (failure instanceof FffsException) {
      return of(((FffsException) failure).code(), failure.getMessage());
    }
    if (failure instanceof CodedException) {
      return of(((CodedException) failure).code(), failure.getMessage());
    }
    if (failure instanceof FileNotFoundException) {
      return new RemoteError(404, FileNotFoundException.class, ErrorCode.NOT_FOUND, failure.getMessage());
    }
    if (failure instanceof org.apache.hadoop.security.token.SecretManager.InvalidToken) {
      return new RemoteError(403, org.apache.hadoop.security.token.SecretManager.InvalidToken.class,
          ErrorCode.ACCESS_DENIED, failure.getMessage());
    }
    if (failure instanceof AccessControlException) {
      return new RemoteError(403, AccessControlException.class, ErrorCode.ACCESS_DENIED, failure.getMessage());
    }
    if (failure instanceof IllegalArgumentException) {
      return new RemoteError(400, IllegalArgumentException.class, ErrorCode.INVALID_ARGUMENT,
          ErrorCode.INVALID_ARGUMENT + ": " + failure.getMessage());
    }
    if (failure instanceof IOException) {
      // A failure on the way to the servers (a lost connection, a timeout): the caller may try again.
      return new RemoteError(500, IOException.class, ErrorCode.IO_ERROR, ErrorCode.IO_ERROR + ": "
          + failure.getClass().getSimpleName() + ": " + failure.getMessage());
    }
    return null;
  }

  /** What an unexpected failure (a bug) shows: that it happened, not where. */
  static RemoteError internal() {
    return new RemoteError(500, FffsException.class, ErrorCode.INTERNAL,
        ErrorCode.INTERNAL + ": the gateway failed to serve this request; its log says why");
  }

  /** The error Jetty itself raises (a malformed request line, headers too large, no such URL). */
  static RemoteError forStatus(int status, String reason) {
    String text = reason == null || reason.isEmpty() ? "HTTP " + status : reason;
    switch (status) {
      case 404:
        return new RemoteError(404, FileNotFoundException.class, ErrorCode.NOT_FOUND,
            ErrorCode.NOT_FOUND + ": " + text + "; WebHDFS is served under /webhdfs/v1/");
      case 405:
        return new RemoteError(405, UnsupportedOperationException.class, ErrorCode.UNSUPPORTED,
            ErrorCode.UNSUPPORTED + ": " + text);
      default:
        // 505 (a request line without a version, HTTP/0.9) is the client's error, like every 4xx.
        return status >= 500 && status != 505
            ? new RemoteError(status, IOException.class, ErrorCode.INTERNAL, ErrorCode.INTERNAL + ": " + text)
            : new RemoteError(status, IllegalArgumentException.class, ErrorCode.INVALID_ARGUMENT,
                ErrorCode.INVALID_ARGUMENT + ": " + text);
    }
  }

  /** The {@code {"RemoteException": {...}}} body. */
  String toJson() {
    return new Json().beginObject().beginObject("RemoteException")
        .field("exception", exception())
        .field("javaClassName", javaClassName)
        .field("message", message)
        .field("code", code.name())
        .endObject().endObject().toString();
  }
}
