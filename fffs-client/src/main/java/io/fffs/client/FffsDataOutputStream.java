package io.fffs.client;

import java.io.IOException;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;

/**
 * The stream {@code FreezeFrameFileSystem#create}, {@code append} and {@code openForWrite} return: an
 * {@link FSDataOutputStream} that can also {@link #seek} to any position up to the file's length and write there
 * in place (HDFS only appends). The old bytes stay readable at past times.
 */
public final class FffsDataOutputStream extends FSDataOutputStream {
  private final FffsOutputStream stream;

  FffsDataOutputStream(FffsOutputStream stream, FileSystem.Statistics statistics) {
    super(stream, statistics, stream.getPos());
    this.stream = stream;
  }

  /** Moves the write position to {@code position} (at most the current length: else {@code WRITE_BEYOND_EOF}). */
  public void seek(long position) throws IOException {
    stream.seek(position);
  }

  @Override
  public long getPos() {
    return stream.getPos();
  }

  /** The file's length as this writer knows it. */
  public long length() {
    return stream.length();
  }
}
