package io.fffs.rdma;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The UCX transport's control channel: a TCP connection from a client to the DataNode's
 * {@code DatanodeIdProto.transportPort}. It opens with a hello in each direction, then carries the data-transfer
 * frames of {@code DataTransfer.proto} ({@code io.fffs.protocol.frame.FrameFormat}: request and response
 * headers), except that a WRITE's or READ's payload is not the data but a {@link Descriptor} of the client's
 * registered buffer that the DataNode GETs the data from or PUTs the answer into. Responses have no payload.
 * All integers big-endian.
 *
 * <p>Client hello, then DataNode hello:
 * <pre>
 *   0        4        6              10
 *   +--------+--------+--------------+---------------------------+
 *   | magic  | version| length (A)   | client UCX worker address | (A bytes)
 *   +--------+--------+--------------+---------------------------+
 *   | magic  | version| status | length (M) | message (M bytes UTF-8)|   status 0 = accepted, 1 = refused
 *   +--------+--------+--------+------------+------------------------+
 *   0        4        6        7            11
 * </pre>
 * {@code magic} is {@value #MAGIC_HEX}, {@code version} {@value #VERSION}. An accepted hello means the DataNode
 * has an endpoint to the client's worker: the two sides agree on UCX. A refused one (or none) makes an
 * {@code auto} client use TCP with that DataNode.
 *
 * <p>Descriptor (the payload of a WRITE or READ request):
 * <pre>
 *   0                  8            12           14
 *   +------------------+------------+------------+------------------+
 *   | address (u64)    | length u32 | rkey len K | packed rkey (K)  |
 *   +------------------+------------+------------+------------------+
 * </pre>
 * WRITE: the {@code length} bytes to write are at {@code address} (and the header carries their CRC32Cs as usual).
 * READ: the answer may be PUT into {@code [address, address + length)}; length is at least the bytes asked for.
 */
public final class SideChannelFormat {
  public static final int MAGIC = 0x46465558;
  public static final String MAGIC_HEX = "0x46465558 (\"FFUX\")";
  public static final short VERSION = 1;
  public static final byte ACCEPTED = 0;
  public static final byte REFUSED = 1;
  public static final int MAX_ADDRESS_BYTES = 64 * 1024;
  public static final int MAX_RKEY_BYTES = 16 * 1024;

  private SideChannelFormat() {}

  /** Where a client's registered bytes are. */
  public record Descriptor(long address, int length, ByteBuffer rkey) {
    public static Descriptor decode(ByteBuffer in) throws FffsException {
      if (in.remaining() < 14) {
        throw malformed("a descriptor of " + in.remaining() + " bytes is shorter than 14");
      }
      long address = in.getLong();
      int length = in.getInt();
      int rkeyLength = Short.toUnsignedInt(in.getShort());
      if (length < 0 || rkeyLength > in.remaining() || rkeyLength > MAX_RKEY_BYTES) {
        throw malformed("descriptor length " + length + " or rkey length " + rkeyLength + " is out of range");
      }
      ByteBuffer rkey = ByteBuffer.allocate(rkeyLength);
      rkey.put(in.slice(in.position(), rkeyLength)).flip();
      in.position(in.position() + rkeyLength);
      return new Descriptor(address, length, rkey);
    }

    public int encodedLength() {
      return 14 + rkey.remaining();
    }

    public void encode(ByteBuffer out) {
      out.putLong(address).putInt(length).putShort((short) rkey.remaining()).put(rkey.duplicate());
    }
  }

  public static ByteBuffer clientHello(ByteBuffer workerAddress) {
    ByteBuffer out = ByteBuffer.allocate(10 + workerAddress.remaining());
    out.putInt(MAGIC).putShort(VERSION).putInt(workerAddress.remaining()).put(workerAddress.duplicate()).flip();
    return out;
  }

  public static ByteBuffer serverHello(byte status, String message) {
    byte[] text = message.getBytes(StandardCharsets.UTF_8);
    ByteBuffer out = ByteBuffer.allocate(11 + text.length);
    out.putInt(MAGIC).putShort(VERSION).put(status).putInt(text.length).put(text).flip();
    return out;
  }

  public static FffsException malformed(String what) {
    return new FffsException(ErrorCode.INVALID_ARGUMENT, "malformed UCX side-channel message: " + what);
  }
}
