package io.fffs.namenode.blocks;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which DataNodes may register, from an include and an exclude file (HDFS's {@code dfs.hosts} and
 * {@code dfs.hosts.exclude}): one host name or address a line, {@code #} starts a comment. A DataNode is admitted
 * when the include file is unset or empty or names it, and the exclude file does not; a name matches by itself or
 * by the address it resolves to. The files are read at start-up and again by {@link #refresh}.
 */
public final class HostFilter {
  private final Path includeFile;
  private final Path excludeFile;
  private volatile Set<String> include = Set.of();
  private volatile Set<String> exclude = Set.of();

  /** {@code null} paths: no such file (everyone is included, no one excluded). */
  public HostFilter(Path includeFile, Path excludeFile) throws IOException {
    this.includeFile = includeFile;
    this.excludeFile = excludeFile;
    refresh();
  }

  /** Admits every DataNode. */
  public static HostFilter allowAll() {
    try {
      return new HostFilter(null, null);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** Reads both files again. */
  public synchronized void refresh() throws IOException {
    include = read(includeFile);
    exclude = read(excludeFile);
  }

  public int includedCount() {
    return include.size();
  }

  public int excludedCount() {
    return exclude.size();
  }

  private static Set<String> read(Path file) throws IOException {
    if (file == null) {
      return Set.of();
    }
    Set<String> hosts = new HashSet<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String host = line.replaceAll("#.*", "").trim();
      if (!host.isEmpty()) {
        hosts.addAll(names(host));
      }
    }
    return Set.copyOf(hosts);
  }

  /** The host as written and the address it resolves to (when it does). */
  private static List<String> names(String host) {
    try {
      return List.of(host, InetAddress.getByName(host).getHostAddress());
    } catch (UnknownHostException e) {
      return List.of(host);
    }
  }

  public boolean admits(DatanodeIdProto id) {
    List<String> names = names(id.getHost());
    boolean included = include.isEmpty() || names.stream().anyMatch(include::contains);
    return included && names.stream().noneMatch(exclude::contains);
  }

  /** Refuses a DataNode the files do not admit, saying which file keeps it out. */
  public void check(DatanodeIdProto id) throws FffsException {
    if (!admits(id)) {
      throw new FffsException(ErrorCode.NODE_NOT_ALLOWED, "DataNode " + id.getHost() + ":" + id.getDataPort()
          + " may not register: " + (names(id.getHost()).stream().anyMatch(exclude::contains)
          ? "the exclude file " + excludeFile + " lists it" : "the include file " + includeFile + " does not list it")
          + " (bin/fffs admin -refreshNodes re-reads them)");
    }
  }
}
