package io.fffs.namenode.permission;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.ipc.Server;
import org.apache.hadoop.security.UserGroupInformation;

/** Who is asking: a user name and its groups, taken from Hadoop's {@link UserGroupInformation}. */
public final class Caller {
  private final String user;
  private final Set<String> groups;

  public Caller(String user, Set<String> groups) {
    this.user = user;
    this.groups = groups;
  }

  public Caller(String user, List<String> groups) {
    this(user, Set.copyOf(groups));
  }

  /** The caller of the current Hadoop IPC call, or the current process user outside of one. */
  public static Caller current() throws IOException {
    UserGroupInformation ugi = Server.getRemoteUser();
    if (ugi == null) {
      ugi = UserGroupInformation.getCurrentUser();
    }
    return new Caller(ugi.getShortUserName(), ugi.getGroupsSet());
  }

  public String user() {
    return user;
  }

  public Set<String> groups() {
    return groups;
  }

  /** The group a new file or directory of this caller gets when it inherits none: its first group. */
  public String primaryGroup(String fallback) {
    return groups.isEmpty() ? fallback : groups.iterator().next();
  }

  @Override
  public String toString() {
    return user;
  }
}
