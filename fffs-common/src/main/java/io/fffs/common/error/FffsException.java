package io.fffs.common.error;

import io.fffs.common.proto.CommonProtos;
import java.io.IOException;

/**
 * The one exception FFFS raises for an error a user can act on: a stable {@link ErrorCode} and a sentence.
 *
 * <p>{@link #getMessage()} is {@code "CODE: detail"}. That text is also how the error crosses Hadoop IPC: the
 * server throws a stack-less copy ({@link #forWire()}), IPC carries class name and message, and
 * {@link RemoteErrors} rebuilds an {@code FffsException} with the same code and detail on the client. Data-transfer
 * frames carry the same pair as {@code ErrorProto} ({@link #toProto()}).
 */
public class FffsException extends IOException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;
  private final String detail;

  public FffsException(ErrorCode code, String detail) {
    super(code.name() + ": " + detail);
    this.code = code;
    this.detail = detail;
  }

  public FffsException(ErrorCode code, String detail, Throwable cause) {
    super(code.name() + ": " + detail, cause);
    this.code = code;
    this.detail = detail;
  }

  /**
   * Rebuilds an exception from its message text ({@code "CODE: detail"}); the constructor Hadoop's
   * {@code RemoteException#unwrapRemoteException} calls reflectively. Text without a known code becomes
   * {@link ErrorCode#INTERNAL} with the whole text as detail.
   */
  public FffsException(String message) {
    this(parseCode(message), parseDetail(message));
  }

  public ErrorCode code() {
    return code;
  }

  /** The sentence without the code prefix. */
  public String detail() {
    return detail;
  }

  /** A copy without stack trace or cause, so that Hadoop IPC sends exactly {@code "CODE: detail"}. */
  public FffsException forWire() {
    FffsException copy = new FffsException(code, detail);
    copy.setStackTrace(new StackTraceElement[0]);
    return copy;
  }

  public CommonProtos.ErrorProto toProto() {
    return CommonProtos.ErrorProto.newBuilder()
        .setCode(CommonProtos.ErrorCodeProto.forNumber(code.number()))
        .setMessage(detail)
        .build();
  }

  public static FffsException fromProto(CommonProtos.ErrorProto proto) {
    return new FffsException(ErrorCode.forNumber(proto.getCode().getNumber()), proto.getMessage());
  }

  static ErrorCode parseCode(String message) {
    int colon = message == null ? -1 : message.indexOf(": ");
    return colon > 0 && isCode(message.substring(0, colon))
        ? ErrorCode.valueOf(message.substring(0, colon))
        : ErrorCode.INTERNAL;
  }

  static String parseDetail(String message) {
    if (message == null) {
      return "(no message)";
    }
    int colon = message.indexOf(": ");
    boolean coded = colon > 0 && isCode(message.substring(0, colon));
    return firstParagraph(coded ? message.substring(colon + 2) : message);
  }

  private static boolean isCode(String text) {
    for (ErrorCode code : ErrorCode.values()) {
      if (code.name().equals(text)) {
        return true;
      }
    }
    return false;
  }

  /** Drops a stack trace (and the line end) that Hadoop IPC appends after the sentence. */
  private static String firstParagraph(String text) {
    int trace = text.indexOf("\n\tat ");
    return (trace < 0 ? text : text.substring(0, trace)).stripTrailing();
  }
}
