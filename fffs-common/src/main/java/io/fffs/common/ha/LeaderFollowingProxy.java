package io.fffs.common.ha;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.ipc.RemoteErrors;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.ipc.RPC;
import org.apache.hadoop.thirdparty.protobuf.ServiceException;

/**
 * One protocol proxy over the NameNodes of a highly available cluster that sends each call to the leader: a call a
 * follower refuses ({@code NOT_LEADER}) goes to the leader it names, one that meets a broken or refused connection
 * to the next NameNode, each NameNode tried at most once per call; the last failure is thrown (the caller's own loop
 * — a heartbeat — tries again later). {@code RPC.stopProxy} stops the proxies under it.
 */
public final class LeaderFollowingProxy implements InvocationHandler, Closeable {
  private static final Pattern LEADER = Pattern.compile("leader=(\\S+?)[;,)\\s]");

  private final List<String> ids;
  private final List<?> targets;
  private volatile int current;

  private LeaderFollowingProxy(List<String> ids, List<?> targets) {
    this.ids = ids;
    this.targets = targets;
  }

  /** A proxy of {@code protocol} over {@code targets}, the proxies of the NameNodes {@code ids}. */
  @SuppressWarnings("unchecked")
  public static <T> T create(Class<T> protocol, List<String> ids, List<T> targets) {
    return (T) Proxy.newProxyInstance(protocol.getClassLoader(), new Class<?>[] {protocol},
        new LeaderFollowingProxy(ids, targets));
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    if (method.getDeclaringClass() == Object.class) {
      return method.invoke(this, args);
    }
    Throwable last = null;
    for (int attempt = 0; attempt < targets.size(); attempt++) {
      int tried = current;
      try {
        return method.invoke(targets.get(tried), args);
      } catch (InvocationTargetException e) {
        last = e.getCause();
        if (!(last instanceof ServiceException service)) {
          throw last;
        }
        IOException failure = RemoteErrors.unwrap(service);
        boolean notLeader = failure instanceof FffsException coded && coded.code() == ErrorCode.NOT_LEADER;
        boolean connection = failure instanceof EOFException || failure instanceof SocketException
            || failure instanceof SocketTimeoutException;
        if (!notLeader && !connection) {
          throw last;
        }
        int named = notLeader ? leaderNamed(failure.getMessage()) : -1;
        current = named >= 0 && named != tried ? named : (tried + 1) % targets.size();
      }
    }
    throw last;
  }

  private int leaderNamed(String message) {
    Matcher m = LEADER.matcher(String.valueOf(message) + " ");
    return m.find() ? ids.indexOf(m.group(1)) : -1;
  }

  @Override
  public void close() {
    targets.forEach(RPC::stopProxy);
  }
}
