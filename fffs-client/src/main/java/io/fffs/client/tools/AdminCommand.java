package io.fffs.client.tools;

import io.fffs.common.conf.GenericArgs;
import io.fffs.common.ha.HaConfigKeys;
import io.fffs.common.ha.LeaderFollowingProxy;
import io.fffs.common.ipc.NamenodeAdminProtocolPB;
import io.fffs.common.ipc.RemoteErrors;
import io.fffs.common.proto.CommonProtos.HlcProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.CheckpointRequestProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.CheckpointResponseProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.DatanodeReportRequestProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.DatanodeReportResponseProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.DecommissionRequestProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.DecommissionResponseProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.HaStateRequestProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.HaStateResponseProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.RefreshNodesRequestProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.RefreshNodesResponseProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.SafeModeActionProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.SafeModeRequestProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.SafeModeResponseProto;
import io.fffs.common.proto.NamenodeAdminProtocolProtos.TransferLeadershipRequestProto;
import io.fffs.common.time.HlcTimestamp;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.ipc.ProtobufRpcEngine2;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;

/**
 * {@code bin/fffs admin COMMAND}: administration of a running cluster, as HDFS's {@code dfsadmin}. Exit codes as
 * there: 0 on success, -1 (255) when the NameNode refused or could not be reached, or for bad usage.
 */
public final class AdminCommand {
  static final String USAGE = String.join("\n",
      "usage: bin/fffs admin [-D fs.defaultFS=fffs://host:port] COMMAND",
      "  -report                          per DataNode: address, transport, arena capacity and use, blocks,",
      "                                   durable-frontier lag, clock offset, health, last contact",
      "  -safemode get|enter|leave|wait   read, enter or leave safe mode (superuser), or wait until it is off",
      "  -refreshNodes                    re-read the include and exclude host files (fffs.namenode.hosts,",
      "                                   fffs.namenode.hosts.exclude); drop DataNodes they no longer admit",
      "  -checkpoint                      save the namespace now: an image at the last txid (superuser)",
      "  -decommission HOST:PORT ...      drain DataNodes (data port): no new blocks, their replicas copied to",
      "                                   DataNodes in service; -report shows the progress (superuser)",
      "  -recommission HOST:PORT ...      put decommissioning or decommissioned DataNodes back in service",
      "  -printTopology                   the DataNodes by rack (one rack: /default-rack)",
      "  -haState                         each NameNode of an HA cluster (fffs://<nameservice>): leader or",
      "                                   follower, the leader it knows, Raft term and applied index, last txid",
      "  -transferLeadership NN           move the lead of an HA cluster to NameNode NN, e.g. nn2 (superuser)",
      "  " + GenericArgs.USAGE);
  /** Exit code of a failure, as {@code hdfs dfsadmin} returns it. */
  static final int FAILED = 255;

  private AdminCommand() {}

  public static void main(String[] args) {
    Configuration conf = new Configuration();
    conf.addResource("fffs-site.xml");
    String[] rest = GenericArgs.applyOrExit(conf, args, "admin", USAGE, FAILED);
    System.exit(run(conf, rest, System.out, System.err));
  }

  /** Runs one command against the NameNode of {@code fs.defaultFS}; returns the exit code. */
  public static int run(Configuration conf, String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help") || args[0].equals("-help")) {
      (args.length == 0 ? err : out).println(USAGE);
      return args.length == 0 ? FAILED : 0;
    }
    String command = args[0];
    boolean known = switch (command) {
      case "-report", "-refreshNodes", "-checkpoint", "-printTopology" -> args.length == 1;
      case "-safemode" -> args.length == 2 && args[1].matches("get|enter|leave|wait");
      case "-haState" -> args.length == 1;
      case "-transferLeadership" -> args.length == 2;
      case "-decommission", "-recommission" -> args.length >= 2
          && java.util.Arrays.stream(args, 1, args.length).allMatch(a -> a.matches(".+:\\d+"));
      default -> false;
    };
    if (!known) {
      err.println("admin: " + String.join(" ", args) + ": unknown command or wrong arguments\n" + USAGE);
      return FAILED;
    }
    URI uri = FileSystem.getDefaultUri(conf);
    if (!"fffs".equals(uri.getScheme()) || uri.getHost() == null) {
      err.println("admin: fs.defaultFS is " + uri + "; point it at a NameNode: -D fs.defaultFS=fffs://host:port");
      return FAILED;
    }
    Configuration rpcConf = new Configuration(conf);
    rpcConf.setInt("ipc.client.connect.max.retries", 2);
    RPC.setProtocolEngine(rpcConf, NamenodeAdminProtocolPB.class, ProtobufRpcEngine2.class);
    boolean ha = HaConfigKeys.isLogical(conf, uri.getAuthority());
    List<String> ids = new ArrayList<>();
    List<NamenodeAdminProtocolPB> proxies = new ArrayList<>();
    try {
      if (ha) {
        rpcConf.setInt("ipc.client.connect.max.retries", 0);
        for (HaConfigKeys.NamenodeAddress nn : HaConfigKeys.namenodes(conf, uri.getHost())) {
          ids.add(nn.id());
          proxies.add(proxy(nn.rpc(), rpcConf));
        }
      } else {
        ids.add(uri.getAuthority());
        proxies.add(proxy(new InetSocketAddress(uri.getHost(), uri.getPort() < 0 ? 8020 : uri.getPort()), rpcConf));
      }
      if (command.equals("-haState")) {
        return haState(ids, proxies, out);
      }
      // Other commands go to the leader of an HA cluster, as the client's calls do.
      NamenodeAdminProtocolPB nn = ha ? LeaderFollowingProxy.create(NamenodeAdminProtocolPB.class, ids,
          List.copyOf(proxies)) : proxies.get(0);
      return run(nn, args, out);
    } catch (IOException e) {
      err.println("admin: " + command + " failed: " + e.getMessage());
      return FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return FAILED;
    } finally {
      proxies.forEach(RPC::stopProxy);
    }
  }

  private static NamenodeAdminProtocolPB proxy(InetSocketAddress address, Configuration rpcConf)
      throws IOException {
    return RPC.getProxy(NamenodeAdminProtocolPB.class, RPC.getProtocolVersion(NamenodeAdminProtocolPB.class),
        address, rpcConf);
  }

  /** One line per NameNode: id, role, the leader it knows of, its Raft state and last txid; 0 if one leads. */
  private static int haState(List<String> ids, List<NamenodeAdminProtocolPB> proxies, PrintStream out) {
    boolean led = false;
    for (int i = 0; i < proxies.size(); i++) {
      try {
        HaStateResponseProto state = proxies.get(i).haState(null, HaStateRequestProto.newBuilder().setHlc(ZERO)
            .build());
        led |= state.getLeader();
        out.println(ids.get(i) + "\t" + (state.getLeader() ? "leader" : "follower")
            + (state.hasLeaderId() ? "\tleader=" + state.getLeaderId() : "")
            + (state.hasRaft() ? "\t" + state.getRaft() : "") + "\ttxid " + state.getLastTxid());
      } catch (ServiceException e) {
        out.println(ids.get(i) + "\tunreachable\t" + RemoteErrors.unwrap(e).getMessage());
      }
    }
    return led ? 0 : FAILED;
  }

  private static final HlcProto ZERO = HlcTimestamp.ZERO.toProto();

  private static int run(NamenodeAdminProtocolPB nn, String[] args, PrintStream out)
      throws IOException, InterruptedException {
    try {
      switch (args[0]) {
        case "-report" -> AdminReport.print(report(nn), out);
        case "-printTopology" -> AdminReport.printTopology(report(nn), out);
        case "-refreshNodes" -> {
          RefreshNodesResponseProto answer = nn.refreshNodes(null,
              RefreshNodesRequestProto.newBuilder().setHlc(ZERO).build());
          out.println("Refresh nodes successful: include file " + (answer.getIncluded() == 0 ? "admits every host"
              : "lists " + answer.getIncluded() + " host names and addresses") + ", exclude file lists "
              + answer.getExcluded());
          for (String dropped : answer.getDroppedList()) {
            out.println("dropped DataNode " + dropped);
          }
        }
        case "-transferLeadership" -> {
          nn.transferLeadership(null, TransferLeadershipRequestProto.newBuilder().setHlc(ZERO).setTo(args[1])
              .build());
          out.println("Leadership moved to " + args[1]);
        }
        case "-decommission", "-recommission" -> {
          boolean recommission = args[0].equals("-recommission");
          List<String> nodes = List.of(args).subList(1, args.length);
          DecommissionResponseProto answer = nn.decommission(null, DecommissionRequestProto.newBuilder()
              .setHlc(ZERO).addAllNodes(nodes).setRecommission(recommission).build());
          out.println((recommission ? "Recommissioned " : "Decommissioning ") + String.join(", ", nodes));
          if (answer.getRegisteredCount() < nodes.size()) {
            out.println("Registered now: " + (answer.getRegisteredCount() == 0 ? "none"
                : String.join(", ", answer.getRegisteredList())) + "; the others are "
                + (recommission ? "not listed" : "decommissioned when they register"));
          }
          out.println("Decommissioned or decommissioning: " + (answer.getDecommissionedCount() == 0 ? "none"
              : String.join(", ", answer.getDecommissionedList())));
        }
        case "-checkpoint" -> {
          CheckpointResponseProto answer = nn.checkpoint(null, CheckpointRequestProto.newBuilder().setHlc(ZERO)
              .build());
          out.println("Checkpoint successful: txid " + answer.getTxid() + ", image " + answer.getImage());
        }
        default -> {
          String action = args[1];
          if (action.equals("wait")) {
            while (safeMode(nn, SafeModeActionProto.SAFEMODE_GET).getOn()) {
              Thread.sleep(1_000);
            }
            out.println("Safe mode is OFF");
            return 0;
          }
          SafeModeResponseProto answer = safeMode(nn, switch (action) {
            case "enter" -> SafeModeActionProto.SAFEMODE_ENTER;
            case "leave" -> SafeModeActionProto.SAFEMODE_LEAVE;
            default -> SafeModeActionProto.SAFEMODE_GET;
          });
          out.println("Safe mode is " + (answer.getOn() ? "ON" : "OFF")
              + (answer.getOn() ? " (" + answer.getStatus() + ")" : ""));
        }
      }
      return 0;
    } catch (ServiceException e) {
      throw RemoteErrors.unwrap(e);
    }
  }

  private static DatanodeReportResponseProto report(NamenodeAdminProtocolPB nn) throws ServiceException {
    return nn.datanodeReport(null, DatanodeReportRequestProto.newBuilder().setHlc(ZERO).build());
  }

  private static SafeModeResponseProto safeMode(NamenodeAdminProtocolPB nn, SafeModeActionProto action)
      throws ServiceException {
    return nn.safeMode(null, SafeModeRequestProto.newBuilder().setHlc(ZERO).setAction(action).build());
  }
}
