package io.fffs.namenode.edits;

import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.time.HlcTimestamp;

/** One logged namespace change: its transaction id, its HLC stamp and the op. */
public final class EditRecord {
  private final long txid;
  private final HlcTimestamp hlc;
  private final EditOpProto op;

  public EditRecord(long txid, HlcTimestamp hlc, EditOpProto op) {
    this.txid = txid;
    this.hlc = hlc;
    this.op = op;
  }

  public long txid() {
    return txid;
  }

  public HlcTimestamp hlc() {
    return hlc;
  }

  public EditOpProto op() {
    return op;
  }

  @Override
  public String toString() {
    return "txid " + txid + " at " + hlc + ": " + op.getOpCase();
  }
}
