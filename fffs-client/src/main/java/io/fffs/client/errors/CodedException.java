package io.fffs.client.errors;

import io.fffs.common.error.ErrorCode;

/**
 * An exception that carries an FFFS {@link ErrorCode}. The client throws Hadoop's exception types where Hadoop
 * code expects them ({@code FileNotFoundException}, {@code FileAlreadyExistsException}, ...); those FFFS
 * subclasses implement this so the code is never lost.
 */
public interface CodedException {
  ErrorCode code();
}
