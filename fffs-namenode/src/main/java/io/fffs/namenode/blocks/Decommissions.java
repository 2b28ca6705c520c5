package io.fffs.namenode.blocks;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The DataNodes an administrator decommissioned ({@code bin/fffs admin -decommission HOST:PORT}), by the address of
 * their data port, kept in a file (one {@code host:port} a line) so that a restarted NameNode goes on
 * decommissioning them, as HDFS's exclude file does; with several NameNodes, in the namespace, changed through the
 * log ({@link Replicated}), so that a new leader goes on decommissioning them. A name matches by itself or by the
 * address it resolves to.
 */
public final class Decommissions {
  private final Path file;
  private final Set<String> nodes = new TreeSet<>();
  private final Replicated replicated;

  /** The list of a NameNode among several: what every NameNode applied from the log. */
  public interface Replicated {
    List<String> current();

    /**
     * Logs {@code next} as the list, and waits until it is committed, if the list is still {@code expected};
     * returns false (nothing logged) if another change came first.
     */
    boolean replace(List<String> expected, List<String> next) throws IOException;
  }

  /** A list kept through the log. */
  public Decommissions(Replicated replicated) {
    this.file = null;
    this.replicated = replicated;
  }

  /** {@code file} null: kept in memory only. */
  public Decommissions(Path file) throws IOException {
    this.file = file;
    this.replicated = null;
    if (file != null && Files.exists(file)) {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          nodes.add(line.trim());
        }
      }
    }
  }

  static Decommissions inMemory() {
    try {
      return new Decommissions((Path) null);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * Starts decommissioning the nodes (or, with {@code recommission}, ends it), saves the list and moves the
   * {@code registered} DataNodes they name; returns those DataNodes' addresses.
   */
  List<String> change(List<String> nodes, boolean recommission,
      Collection<DatanodeDescriptor> registered) throws IOException {
    if (replicated == null) {
      synchronized (this) {
        save(nodes, !recommission);
      }
    } else {
      // Not under this monitor, which DataNode registrations take: logging waits for the write lock and a commit.
      List<String> current;
      do {
        current = replicated.current();
      } while (!replicated.replace(current, List.copyOf(next(current, nodes, !recommission))));
    }
    synchronized (this) {
      return move(nodes, recommission, registered);
    }
  }

  private List<String> move(List<String> nodes, boolean recommission, Collection<DatanodeDescriptor> registered) {
    List<String> named = new java.util.ArrayList<>();
    for (DatanodeDescriptor descriptor : registered) {
      if (nodes.stream().anyMatch(node -> matches(node, descriptor.address()))) {
        named.add(descriptor.address());
        if (recommission) {
          descriptor.adminState = AdminState.NORMAL;
          descriptor.decommissionBlocksLeft = 0;
        } else if (descriptor.adminState == AdminState.NORMAL) {
          descriptor.adminState = AdminState.DECOMMISSIONING;
        }
      }
    }
    return named;
  }

  /**
   * Sets a DataNode's state from the list (at registration): a listed one is decommissioning (a decommissioned one
   * stays so until the next scan checks its blocks again), any other in service.
   */
  synchronized void applyTo(DatanodeDescriptor descriptor) {
    if (!contains(descriptor.address())) {
      descriptor.adminState = AdminState.NORMAL;
    } else if (descriptor.adminState == AdminState.NORMAL) {
      descriptor.adminState = AdminState.DECOMMISSIONING;
    }
  }

  /**
   * Records what the replication monitor found for a decommissioning DataNode: none left (once its full block
   * report is in) makes it decommissioned.
   */
  static void progress(DatanodeDescriptor descriptor, long blocksLeft) {
    descriptor.decommissionBlocksLeft = blocksLeft;
    if (blocksLeft == 0 && descriptor.adminState == AdminState.DECOMMISSIONING
        && descriptor.reportedSinceRegistration) {
      descriptor.adminState = AdminState.DECOMMISSIONED;
    }
  }

  /** Adds ({@code add}) or removes the nodes and saves the list. */
  private void save(Collection<String> changed, boolean add) throws IOException {
    Set<String> next = next(nodes, changed, add);
    if (file != null) {
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.write(tmp, next, StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
    nodes.clear();
    nodes.addAll(next);
  }

  private static Set<String> next(Collection<String> listed, Collection<String> changed, boolean add) {
    Set<String> next = new TreeSet<>(listed);
    if (add) {
      next.addAll(changed);
    } else {
      for (String node : changed) {
        next.removeIf(one -> matches(one, node));
      }
    }
    return next;
  }

  private Collection<String> listed() {
    return replicated == null ? nodes : replicated.current();
  }

  /** Whether the DataNode at {@code address} ({@code host:port}) is listed. */
  public synchronized boolean contains(String address) {
    for (String listed : listed()) {
      if (matches(listed, address)) {
        return true;
      }
    }
    return false;
  }

  public synchronized List<String> list() {
    return List.copyOf(listed());
  }

  /** Whether two {@code host:port} names are the same port on the same host (by name or resolved address). */
  static boolean matches(String a, String b) {
    return a.equals(b) || resolved(a).equals(resolved(b));
  }

  private static String resolved(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0) {
      return hostPort;
    }
    try {
      return InetAddress.getByName(hostPort.substring(0, colon)).getHostAddress() + hostPort.substring(colon);
    } catch (UnknownHostException e) {
      return hostPort;
    }
  }
}
