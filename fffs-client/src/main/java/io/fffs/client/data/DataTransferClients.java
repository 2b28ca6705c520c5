package io.fffs.client.data;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.time.HybridLogicalClock;
import java.lang.reflect.InvocationTargetException;
import org.apache.hadoop.conf.Configuration;

/**
 * Chooses the data-transfer implementation for {@code fffs.transport}: {@code auto} and {@code tcp} use Netty over
 * TCP; {@code ucx} (the RDMA transport) comes with its own issue.
 */
public final class DataTransferClients {
  public static final String TRANSPORT_KEY = "fffs.transport";
  public static final String TRANSPORT_DEFAULT = "auto";
  static final String NETTY_CLIENT = "io.fffs.client.data.NettyDataTransferClient";

  private DataTransferClients() {}

  public static DataTransferClient create(Configuration conf, HybridLogicalClock clock) throws FffsException {
    String transport = conf.getTrimmed(TRANSPORT_KEY, TRANSPORT_DEFAULT);
    if (!transport.equals("auto") && !transport.equals("tcp")) {
      throw new FffsException(ErrorCode.UNSUPPORTED, TRANSPORT_KEY + "=" + transport
          + " is not available in this build; use auto or tcp");
    }
    try {
      return (DataTransferClient) Class.forName(NETTY_CLIENT)
          .getConstructor(Configuration.class, HybridLogicalClock.class).newInstance(conf, clock);
    } catch (InvocationTargetException e) {
      throw new FffsException(ErrorCode.INTERNAL, "the TCP data client failed to start: " + e.getCause(),
          e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new FffsException(ErrorCode.INTERNAL, "the TCP data client is missing from the class path: " + e, e);
    }
  }
}
