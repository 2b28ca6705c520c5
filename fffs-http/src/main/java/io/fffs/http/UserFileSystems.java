package io.fffs.http;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.security.PrivilegedExceptionAction;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.security.UserGroupInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code fffs://} client per user, so that the NameNode checks each request's permissions as its
 * {@code user.name} (simple authentication: the IPC connection carries the name). The clients of the most recently
 * seen users stay open; beyond {@code fffs.http.user-cache} the least recent is closed once no request uses it.
 */
final class UserFileSystems implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(UserFileSystems.class);
  /** HDFS's default {@code dfs.webhdfs.user.provider.user.pattern}. */
  private static final Pattern USER_NAME = Pattern.compile("^[A-Za-z_][A-Za-z0-9._-]*[$]?$");
  private static final int MAX_USER_NAME = 256;

  private final URI uri;
  private final Configuration conf;
  private final int capacity;
  private final Map<String, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
  private final Users identities;

  /** The user a client of a key runs as. */
  interface Users {
    UserGroupInformation userFor(String key) throws IOException;
  }
  private boolean closed;

  /** A user's client, held by the requests using it; closed when evicted and released by all. */
  final class Entry implements AutoCloseable {
    final String user;
    final FreezeFrameFileSystem fs;
    final UserGroupInformation ugi;
    private int users;
    private boolean evicted;

    private Entry(String user, FreezeFrameFileSystem fs, UserGroupInformation ugi) {
      this.user = user;
      this.fs = fs;
      this.ugi = ugi;
    }

    @Override
    public void close() {
      boolean last;
      synchronized (UserFileSystems.this) {
        users--;
        last = evicted && users == 0;
      }
      if (last) {
        closeQuietly(this);
      }
    }
  }

  UserFileSystems(URI uri, Configuration conf, int capacity) {
    this(uri, conf, capacity, UserGroupInformation::createRemoteUser);
  }

  /** @param users the user each key's client runs as (with Kerberos: a proxy user, or a token's owner) */
  UserFileSystems(URI uri, Configuration conf, int capacity, Users users) {
    this.identities = users;
    this.uri = uri;
    this.conf = conf;
    this.capacity = Math.max(1, capacity);
  }

  /** Checks a {@code user.name} value as HDFS does. */
  static String checkUserName(String user) throws FffsException {
    if (user.length() > MAX_USER_NAME || !USER_NAME.matcher(user).matches()) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "Invalid value for webhdfs parameter \"user.name\": "
          + Printable.of(user, 64) + " is not a user name (letters, digits, '.', '_', '-'; not starting with a digit)");
    }
    return user;
  }

  /** The client of {@code user}, held until the returned entry is closed. */
  Entry acquire(String user) throws IOException {
    Entry entry;
    synchronized (this) {
      if (closed) {
        throw new FffsException(ErrorCode.NODE_UNHEALTHY, "the gateway is shutting down");
      }
      entry = entries.get(user);
      if (entry != null) {
        entry.users++;
        return entry;
      }
    }
    UserGroupInformation ugi = identities.userFor(user);
    FreezeFrameFileSystem fs = open(user, ugi);
    Entry evicted = null;
    Entry raced;
    synchronized (this) {
      raced = closed ? null : entries.get(user);
      if (raced != null) {
        raced.users++;
      } else if (!closed) {
        entry = new Entry(user, fs, ugi);
        entry.users = 1;
        entries.put(user, entry);
        if (entries.size() > capacity) {
          Iterator<Entry> eldest = entries.values().iterator();
          evicted = eldest.next();
          eldest.remove();
          evicted.evicted = true;
          if (evicted.users > 0) {
            evicted = null;  // its last request closes it
          }
        }
      }
    }
    if (entry == null) {
      fs.close();  // another request opened this user's client meanwhile, or the gateway is closing
      if (raced == null) {
        throw new FffsException(ErrorCode.NODE_UNHEALTHY, "the gateway is shutting down");
      }
      return raced;
    }
    if (evicted != null) {
      closeQuietly(evicted);
    }
    return entry;
  }

  /** Closes the client of {@code key} once no request uses it (a cancelled delegation token's). */
  void evict(String key) {
    Entry entry;
    synchronized (this) {
      entry = entries.remove(key);
      if (entry == null) {
        return;
      }
      entry.evicted = true;
      if (entry.users > 0) {
        return;  // its last request closes it
      }
    }
    closeQuietly(entry);
  }

  private FreezeFrameFileSystem open(String user, UserGroupInformation ugi) throws IOException {
    try {
      return ugi.doAs((PrivilegedExceptionAction<FreezeFrameFileSystem>) () ->
          (FreezeFrameFileSystem) FileSystem.newInstance(uri, conf));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted opening a client for " + user);
    }
  }

  private static void closeQuietly(Entry entry) {
    try {
      entry.fs.close();
    } catch (IOException e) {
      LOG.warn("closing the client of {}: {}", entry.user, e.toString());
    }
  }

  /** Users whose clients are open. */
  synchronized int size() {
    return entries.size();
  }

  @Override
  public void close() {
    Entry[] open;
    synchronized (this) {
      closed = true;
      open = entries.values().toArray(new Entry[0]);
      entries.clear();
    }
    for (Entry entry : open) {
      closeQuietly(entry);
    }
  }
}
