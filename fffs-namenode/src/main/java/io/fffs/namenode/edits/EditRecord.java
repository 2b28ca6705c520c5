package io.fffs.namenode.edits;

import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.time.HlcTimestamp;

/** One logged namespace change: its transaction id, its HLC stamp and the op. */
public record EditRecord(long txid, HlcTimestamp hlc, EditOpProto op) {
  @Override
  public String toString() {
    return "txid " + txid + " at " + hlc + ": " + op.getOpCase();
  }
}
