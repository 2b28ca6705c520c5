package io.fffs.namenode.ha;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.netty.NettyFactory;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;
import org.apache.ratis.server.protocol.TermIndex;

/**
 * Ratis over Netty, with the leader's appenders reporting each answered AppendEntries request to the
 * {@link ReadLease} of the {@link NamenodeStateMachine}. Ratis 3.2.0 keeps its own lease inside its read-index path
 * only, and that path completes at once without a heartbeat round when the commit index has not moved since the
 * last one, so a cut-off leader on a quiet cluster would still pass it; the send time of each answered request is
 * what a lease needs, and the appender's leader-state callbacks are where Ratis exposes it. Named in
 * {@code raft.rpc.type} by class name (Ratis creates it reflectively).
 */
public final class LeaseTrackingNetty implements RpcType {
  @Override
  public String name() {
    return LeaseTrackingNetty.class.getName();
  }

  @Override
  public RpcFactory newFactory(Parameters parameters) {
    return new Factory(parameters);
  }

  /** Netty's factory whose log appenders see their leader state through {@link Watched}. */
  static final class Factory extends NettyFactory {
    Factory(Parameters parameters) {
      super(parameters);
    }

    @Override
    public LogAppender newLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo follower) {
      if (!(server.getStateMachine() instanceof NamenodeStateMachine machine)) {
        return super.newLogAppender(server, state, follower);
      }
      LogAppender appender = super.newLogAppender(server, new Watched(state, machine.readLease()), follower);
      machine.readLease().appender(state, follower.getId().toString(), appender::triggerHeartbeat);
      return appender;
    }
  }

  /**
   * The leader state as one appender sees it: an answer in the leader's term (success or a log inconsistency; not
   * a refusal naming a higher term) counts for the lease at the send time of the request it answers, which Ratis's
   * appender records on the same thread just before.
   */
  private static final class Watched implements LeaderState {
    private final LeaderState state;
    private final ReadLease lease;

    Watched(LeaderState state, ReadLease lease) {
      this.state = state;
      this.lease = lease;
    }

    @Override
    public void onAppendEntriesReply(LogAppender appender, AppendEntriesReplyProto reply) {
      if (reply.getResult() == AppendEntriesReplyProto.AppendResult.SUCCESS
          || reply.getResult() == AppendEntriesReplyProto.AppendResult.INCONSISTENCY) {
        long now = System.nanoTime();  // read before the elapsed time: the send time comes out no later than it was
        long sent = now - appender.getFollower().getLastRespondedAppendEntriesSendTime().elapsedTime()
            .toLong(TimeUnit.NANOSECONDS);
        lease.answered(state, appender.getFollowerId().toString(), sent);
      }
      state.onAppendEntriesReply(appender, reply);
    }

    @Override
    public void restart(LogAppender appender) {
      state.restart(appender);
    }

    @Override
    public AppendEntriesRequestProto newAppendEntriesRequestProto(FollowerInfo follower, List<LogEntryProto> entries,
        TermIndex previous, long callId) {
      return state.newAppendEntriesRequestProto(follower, entries, previous, callId);
    }

    @Override
    public void checkHealth(FollowerInfo follower) {
      state.checkHealth(follower);
    }

    @Override
    public boolean onFollowerTerm(FollowerInfo follower, long followerTerm) {
      return state.onFollowerTerm(follower, followerTerm);
    }

    @Override
    public void onFollowerCommitIndex(FollowerInfo follower, long commitIndex) {
      state.onFollowerCommitIndex(follower, commitIndex);
    }

    @Override
    public void onFollowerSuccessAppendEntries(FollowerInfo follower) {
      state.onFollowerSuccessAppendEntries(follower);
    }

    @Override
    public boolean isFollowerBootstrapping(FollowerInfo follower) {
      return state.isFollowerBootstrapping(follower);
    }
  }
}
