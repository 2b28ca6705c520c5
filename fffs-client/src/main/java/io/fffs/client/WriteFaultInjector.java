package io.fffs.client;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import java.io.IOException;
import java.util.List;

/**
 * Named fault hooks of the client's write path; every hook does nothing in production. A test installs a subclass
 * whose hook fails a DataNode (kills or stops its process) at exactly the point named, between two steps of a write
 * that nothing outside the stream could fall between. (HDFS's {@code DFSClientFaultInjector} is the model.)
 */
public class WriteFaultInjector {
  private static final WriteFaultInjector NO_OP = new WriteFaultInjector();
  private static volatile WriteFaultInjector instance = NO_OP;

  public static WriteFaultInjector get() {
    return instance;
  }

  /** Installs {@code injector}; {@code null} restores the no-op default. */
  public static void set(WriteFaultInjector injector) {
    instance = injector == null ? NO_OP : injector;
  }

  /** An hsync of {@code path} has every written byte acknowledged by its pipelines; its SYNCs are not sent yet. */
  public void beforeSync(String path) throws IOException {}

  /**
   * {@code primary} took over block {@code blockId} of {@code path} from a lost primary; the writes that one did not
   * acknowledge are not sent to it yet.
   */
  public void afterPromotion(String path, long blockId, DatanodeIdProto primary) throws IOException {}

  /**
   * A write of {@code path} is about to go to block {@code blockId}, whose DataNodes are {@code pipeline} (the primary
   * first); returns whether the stream is to take the block's WRITE token as due for renewal now, whatever its clock
   * says, so that a test makes a token come due at exactly the write it chooses (and may fail a DataNode there).
   */
  public boolean tokenDue(String path, long blockId, List<DatanodeIdProto> pipeline) throws IOException {
    return false;
  }
}
