package io.fffs.common.ipc;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import org.apache.hadoop.ipc.RemoteException;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;

/**
 * How an {@link FffsException} crosses Hadoop IPC. A server method wraps what it throws with
 * {@link #toServiceException}; IPC sends the exception's class name and message; the client turns the
 * {@link ServiceException} its proxy throws back into an {@code FffsException} with the same code and sentence
 * with {@link #unwrap}.
 */
public final class RemoteErrors {
  private RemoteErrors() {}

  /**
   * Server side: the exception to throw from a protobuf service method. An {@code FffsException} travels without
   * its stack trace (the user reads {@code CODE: sentence}, not a server's frames); any other exception travels as
   * {@code INTERNAL} with its description.
   */
  public static ServiceException toServiceException(Throwable error) {
    FffsException typed = error instanceof FffsException
        ? (FffsException) error
        : new FffsException(ErrorCode.INTERNAL, String.valueOf(error));
    return new ServiceException(typed.forWire());
  }

  /**
   * Client side: the {@link IOException} a failed call stands for. An error a FFFS server raised comes back as an
   * {@code FffsException} with its code; connection failures and other Hadoop errors come back as they are.
   */
  public static IOException unwrap(ServiceException failure) {
    Throwable cause = failure.getCause();
    if (cause instanceof RemoteException) {
      RemoteException remote = (RemoteException) cause;
      if (remote.getClassName().startsWith("io.fffs.")) {
        FffsException rebuilt = new FffsException(remote.getMessage());
        rebuilt.initCause(remote);
        return rebuilt;
      }
      return remote.unwrapRemoteException();
    }
    if (cause instanceof IOException) {
      return (IOException) cause;
    }
    return new IOException(failure.getMessage(), failure);
  }
}
