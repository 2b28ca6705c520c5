package io.fffs.http;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.EnumSet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * The second step of the two-step operations: the file's bytes between the HTTP body and the user's
 * {@code fffs://} client (reads at the request's time through the client's temporal paths). A read's
 * {@code Content-Length} is exact, as Hadoop's client relies on it to know the file's end.
 */
final class DataOps {
  private final int copyBuffer;

  DataOps(int copyBuffer) {
    this.copyBuffer = copyBuffer;
  }

  void serve(Call call, FreezeFrameFileSystem fs, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    switch (call.op) {
      case OPEN:
        open(call, fs, response);
        return;
      case CREATE:
        create(call, fs, request, response);
        return;
      case APPEND:
        call.path.requirePresent("append to");
        try (FSDataOutputStream out = Reconnects.retryOnce(() -> fs.append(call.path.path, bufferSize(call)))) {
          copy(request.getInputStream(), out);
        }
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentLength(0);
        return;
      case GETFILECHECKSUM:
        Responses.json(response, HttpServletResponse.SC_OK, FileChecksums.json(fs, call.path.path));
        return;
      default:
        throw new FffsException(ErrorCode.INTERNAL, call.op + " moves no file bytes");
    }
  }

  private void open(Call call, FreezeFrameFileSystem fs, HttpServletResponse response) throws IOException {
    long offset = call.longValue("offset", 0, 0);
    Long length = call.optionalLong("length", 0);
    try (FSDataInputStream in = Reconnects.retryOnce(() -> fs.open(call.path.path, bufferSize(call)))) {
      // available() is the length of the version opened less the position, while it fits an int.
      int available = in.available();
      long fileLength = available < Integer.MAX_VALUE ? available : fs.getFileStatus(call.path.path).getLen();
      // At or past the end there is nothing to read: an empty answer, as a read there returns (Hadoop's client
      // takes the end from it and can seek back).
      long count = offset >= fileLength ? 0 : length == null ? fileLength - offset : Math.min(length,
          fileLength - offset);
      if (count > 0 && offset > 0) {
        in.seek(offset);
      }
      response.setStatus(HttpServletResponse.SC_OK);
      response.setContentType("application/octet-stream");
      response.setContentLengthLong(count);
      OutputStream out = response.getOutputStream();
      byte[] buffer = new byte[(int) Math.min(copyBuffer, Math.max(1, count))];
      long left = count;
      while (left > 0) {
        int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
        if (n < 0) {
          throw new EOFException("IO_ERROR: " + call.path.path + " ended " + left + " bytes early");
        }
        out.write(buffer, 0, n);
        left -= n;
      }
    }
  }

  private void create(Call call, FreezeFrameFileSystem fs, HttpServletRequest request,
      HttpServletResponse response) throws IOException {
    call.path.requirePresent("create");
    Path path = call.path.path;
    long blockSize = call.longValue("blocksize", fs.getDefaultBlockSize(path), 1);
    EnumSet<CreateFlag> flags = call.createFlags();
    if (call.bool("overwrite", false)) {
      flags.add(CreateFlag.OVERWRITE);
    }
    FsPermission permission = call.permission((short) 0644);
    short replication = call.replication(fs.getDefaultReplication(path));
    int bufferSize = bufferSize(call);
    boolean createParent = call.bool("createparent", true);
    try (FSDataOutputStream out = Reconnects.retryOnce(() -> createParent
        ? fs.create(path, permission, flags.contains(CreateFlag.OVERWRITE), bufferSize, replication, blockSize, null)
        : fs.createNonRecursive(path, permission, flags, bufferSize, replication, blockSize, null))) {
      copy(request.getInputStream(), out);
    }
    response.setStatus(HttpServletResponse.SC_CREATED);
    response.setHeader("Location", fs.makeQualified(path).toString());
    response.setContentLength(0);
  }

  private static int bufferSize(Call call) throws FffsException {
    return (int) Math.min(1 << 24, call.longValue("buffersize", 4096, 1));
  }

  /** Copies {@code in} to {@code out} in buffers filled as far as the body allows, so writes are whole packets. */
  private void copy(InputStream in, OutputStream out) throws IOException {
    byte[] buffer = new byte[copyBuffer];
    while (true) {
      int filled = 0;
      while (filled < buffer.length) {
        int n = in.read(buffer, filled, buffer.length - filled);
        if (n < 0) {
          break;
        }
        filled += n;
      }
      if (filled == 0) {
        return;
      }
      out.write(buffer, 0, filled);
      if (filled < buffer.length) {
        return;
      }
    }
  }
}
