package io.fffs.protocol.frame;

import io.netty.buffer.ByteBuf;

/**
 * One decoded data-transfer frame: its parsed header and its raw payload, a slice of the receive buffer (no copy).
 * Whoever takes a frame owns the payload and must {@link #release()} it.
 *
 * @param <H> the header message ({@code RequestHeaderProto} on a DataNode, {@code ResponseHeaderProto} on a client)
 */
public final class Frame<H> {
  private final H header;
  private final ByteBuf payload;

  public Frame(H header, ByteBuf payload) {
    this.header = header;
    this.payload = payload;
  }

  public H header() {
    return header;
  }

  /** The payload bytes (readable bytes of the buffer); empty for frames without payload. */
  public ByteBuf payload() {
    return payload;
  }

  public void release() {
    payload.release();
  }
}
