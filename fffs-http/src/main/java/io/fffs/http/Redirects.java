package io.fffs.http;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;

/**
 * The first step of OPEN, CREATE and APPEND (and GETFILECHECKSUM): check what can be checked without the bytes,
 * then send the client to the gateway that moves them, as WebHDFS's NameNode sends it to a DataNode. The data
 * gateway for a read is the one on the host of the DataNode holding the first byte asked for, if there is one;
 * otherwise gateways take turns. The URL carries the NameNode's address ({@code namenoderpcaddress}, as HDFS's
 * do), which marks the second step, and the time as a marker in the path.
 */
final class Redirects {
  private final List<String> dataGateways;
  private final String nameNode;
  private final AtomicInteger turn = new AtomicInteger();

  /** {@code dataGateways} as {@code host:port}; empty: this gateway serves the data itself. */
  Redirects(List<String> dataGateways, String nameNode) {
    this.dataGateways = List.copyOf(dataGateways);
    this.nameNode = nameNode;
  }

  /** The URL of the second step of {@code call}; {@code self} is this gateway's {@code host:port}. */
  String locationFor(Call call, FreezeFrameFileSystem fs, String self) throws IOException {
    call.longValue("buffersize", 4096, 1);
    switch (call.op) {
      case OPEN:
      case GETFILECHECKSUM: {
        long offset = call.longValue("offset", 0, 0);
        call.optionalLong("length", 0);
        FileStatus status = fs.getFileStatus(call.path.path);
        if (status.isDirectory()) {
          throw new FffsException(ErrorCode.IS_A_DIRECTORY, call.path.path + " is a directory; only files have"
              + " bytes to " + (call.op == WebHdfsOp.OPEN ? "read" : "checksum"));
        }
        return url(gatewayFor(fs, status, offset, self), call);
      }
      case CREATE:
        call.path.requirePresent("create");
        call.permission((short) 0644);
        call.bool("overwrite", false);
        call.bool("createparent", true);
        call.createFlags();
        call.longValue("blocksize", 0, 1);
        call.replication((short) 1);
        return url(next(self), call);
      case APPEND: {
        call.path.requirePresent("append to");
        FileStatus status = fs.getFileStatus(call.path.path);
        if (status.isDirectory()) {
          throw new FffsException(ErrorCode.IS_A_DIRECTORY, call.path.path + " is a directory; only files can be"
              + " appended to");
        }
        return url(gatewayFor(fs, status, Math.max(0, status.getLen() - 1), self), call);
      }
      default:
        throw new FffsException(ErrorCode.INTERNAL, call.op + " is not redirected");
    }
  }

  private String next(String self) {
    return dataGateways.isEmpty() ? self : dataGateways.get(Math.floorMod(turn.getAndIncrement(),
        dataGateways.size()));
  }

  /** The gateway on the host of the DataNode holding byte {@code offset}, else the next in turn. */
  private String gatewayFor(FreezeFrameFileSystem fs, FileStatus status, long offset, String self)
      throws IOException {
    if (dataGateways.size() > 1 && status.getLen() > 0 && distinctHosts()) {
      for (BlockLocation block : fs.getFileBlockLocations(status, Math.min(offset, status.getLen() - 1), 1)) {
        for (String host : block.getHosts()) {
          for (String gateway : dataGateways) {
            if (gateway.substring(0, gateway.lastIndexOf(':')).equals(host)) {
              return gateway;
            }
          }
        }
      }
    }
    return next(self);
  }

  private boolean distinctHosts() {
    return dataGateways.stream().map(g -> g.substring(0, g.lastIndexOf(':'))).distinct().count()
        == dataGateways.size();
  }

  private String url(String gateway, Call call) {
    StringBuilder url = new StringBuilder("http://").append(gateway).append(RequestPath.PREFIX)
        .append(call.path.encoded()).append("?op=").append(call.op);
    for (Map.Entry<String, String> parameter : call.parameters.entrySet()) {
      switch (parameter.getKey()) {
        case "op":
        case "noredirect":
        case "at":
        case "user.name":
        case "namenoderpcaddress":
          break;
        default:
          url.append('&').append(query(parameter.getKey())).append('=').append(query(parameter.getValue()));
      }
    }
    return url.append("&user.name=").append(query(call.user)).append("&namenoderpcaddress=").append(query(nameNode))
        .toString();
  }

  private static String query(String text) {
    return RequestPath.encode(text);
  }
}
