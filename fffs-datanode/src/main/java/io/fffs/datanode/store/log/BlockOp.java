package io.fffs.datanode.store.log;

/** The kinds of block-log entry (the paper's CB, W, DB, plus truncate); the code is the on-disk byte. */
public enum BlockOp {
  CREATE(1),
  WRITE(2),
  TRUNCATE(3),
  DELETE(4);

  private static final BlockOp[] BY_CODE = {null, CREATE, WRITE, TRUNCATE, DELETE};

  private final byte code;

  BlockOp(int code) {
    this.code = (byte) code;
  }

  public byte code() {
    return code;
  }

  /** The op with this code, or {@code null} if the code is unknown (a corrupt record). */
  public static BlockOp forCode(int code) {
    return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
  }
}
