package io.fffs.client.errors;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.security.AccessControlException;

/**
 * Turns an {@link FffsException} into the exception type Hadoop's {@code FileSystem} contract expects for it, keeping
 * the code and the sentence ("CODE: sentence" as the message). Codes Hadoop has no type for stay
 * {@code FffsException}.
 */
public final class ClientErrors {
  private ClientErrors() {}

  /** The exception to throw for {@code error}. */
  public static IOException translate(FffsException error) {
    IOException translated;
    switch (error.code()) {
      case NOT_FOUND:
        translated = new NotFound(error);
        break;
      case ALREADY_EXISTS:
        translated = new AlreadyExists(error);
        break;
      case IS_A_DIRECTORY:
        translated = new IsADirectory(error);
        break;
      case NOT_A_DIRECTORY:
        translated = new NotADirectory(error);
        break;
      case DIRECTORY_NOT_EMPTY:
        translated = new NotEmpty(error);
        break;
      case ACCESS_DENIED:
        translated = new Denied(error);
        break;
      case HISTORY_EXPIRED:
        translated = new HistoryExpired(error);
        break;
      default:
        return error;
    }
    translated.initCause(error);
    return translated;
  }

  /** An I/O action, typically a NameNode call. */
  @FunctionalInterface
  public interface Action<T> {
    T run() throws IOException;
  }

  /** Runs {@code action}; an FFFS error it raises reaches the caller as the type Hadoop code expects. */
  public static <T> T translating(Action<T> action) throws IOException {
    try {
      return action.run();
    } catch (IOException e) {
      throw translate(e);
    }
  }

  /** {@link #translate} for any IOException: FFFS errors are translated, others pass through. */
  public static IOException translate(IOException error) {
    return error instanceof FffsException && !(error instanceof CodedException)
        ? translate((FffsException) error) : error;
  }

  static final class NotFound extends FileNotFoundException implements CodedException {
    private static final long serialVersionUID = 1L;

    NotFound(FffsException e) {
      super(e.getMessage());
    }

    @Override
    public ErrorCode code() {
      return ErrorCode.NOT_FOUND;
    }
  }

  /** Opening, appending to or truncating a directory: HDFS's "Path is not a file" is a FileNotFoundException. */
  static final class IsADirectory extends FileNotFoundException implements CodedException {
    private static final long serialVersionUID = 1L;

    IsADirectory(FffsException e) {
      super(e.getMessage());
    }

    @Override
    public ErrorCode code() {
      return ErrorCode.IS_A_DIRECTORY;
    }
  }

  static final class AlreadyExists extends FileAlreadyExistsException implements CodedException {
    private static final long serialVersionUID = 1L;

    AlreadyExists(FffsException e) {
      super(e.getMessage());
    }

    @Override
    public ErrorCode code() {
      return ErrorCode.ALREADY_EXISTS;
    }
  }

  static final class NotADirectory extends ParentNotDirectoryException implements CodedException {
    private static final long serialVersionUID = 1L;

    NotADirectory(FffsException e) {
      super(e.getMessage());
    }

    @Override
    public ErrorCode code() {
      return ErrorCode.NOT_A_DIRECTORY;
    }
  }

  static final class NotEmpty extends PathIsNotEmptyDirectoryException implements CodedException {
    private static final long serialVersionUID = 1L;

    NotEmpty(FffsException e) {
      super(e.getMessage());
    }

    @Override
    public ErrorCode code() {
      return ErrorCode.DIRECTORY_NOT_EMPTY;
    }
  }

  /**
   * A read of a moment retention no longer keeps: to Hadoop code the path is not there at that time (what it reads
   * is gone), so a FileNotFoundException, with the horizon and the rule in its message.
   */
  static final class HistoryExpired extends FileNotFoundException implements CodedException {
    private static final long serialVersionUID = 1L;

    HistoryExpired(FffsException e) {
      super(e.getMessage());
    }

    @Override
    public ErrorCode code() {
      return ErrorCode.HISTORY_EXPIRED;
    }
  }

  static final class Denied extends AccessControlException implements CodedException {
    private static final long serialVersionUID = 1L;

    Denied(FffsException e) {
      super(e.getMessage());
    }

    @Override
    public ErrorCode code() {
      return ErrorCode.ACCESS_DENIED;
    }
  }
}
