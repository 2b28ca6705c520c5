package io.fffs.namenode.fs;

import io.fffs.common.error.FffsException;
import io.fffs.common.proto.NamenodeEditsProtos.EditOpProto;
import io.fffs.common.time.HlcTimestamp;
import java.io.IOException;

/**
 * The one way the operations change the namespace ({@link Namesystem} owns it): a change validates under the write
 * lock and logs its ops, each stamped, queued to the edit log and applied by the same code that replays it.
 */
interface MutationPath {
  /** The validation and logging of one change, run under the write lock. */
  interface Change<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code change} under the write lock ({@code SAFE_MODE} while safe mode is on, naming {@code what}); its
   * answer is to be given once every change logged so far is durable.
   */
  <T> Logged<T> mutate(String what, Change<T> change) throws IOException;

  /** Stamps, logs and applies one validated op; only from inside a {@link Change}. */
  HlcTimestamp log(EditOpProto op) throws FffsException;
}
