package io.fffs.namenode.namespace;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.util.ArrayList;
import java.util.List;

/** Plain absolute paths as the NameNode sees them: {@code /a/b/c}, no scheme, no time marker. */
public final class NamePaths {
  private NamePaths() {}

  /** The components of {@code path}; the root has none. Refuses relative paths, {@code .}, {@code ..}. */
  public static List<String> components(String path) throws FffsException {
    if (path == null || !path.startsWith("/")) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "'" + path + "' is not an absolute path");
    }
    List<String> parts = new ArrayList<>();
    int start = 1;
    while (start <= path.length()) {
      int slash = path.indexOf('/', start);
      int end = slash < 0 ? path.length() : slash;
      String part = path.substring(start, end);
      if (part.equals(".") || part.equals("..")) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "'" + path + "' holds '" + part
            + "'; give a normalized absolute path");
      }
      if (part.indexOf('\0') >= 0) {
        throw new FffsException(ErrorCode.INVALID_ARGUMENT, "'" + path + "' holds a NUL character");
      }
      if (!part.isEmpty()) {
        parts.add(part);
      }
      start = end + 1;
    }
    return parts;
  }

  /** {@code parent} joined with {@code name}. */
  public static String child(String parent, String name) {
    return parent.endsWith("/") ? parent + name : parent + "/" + name;
  }

  /** The normalized form of a path given as components. */
  public static String join(List<String> components) {
    if (components.isEmpty()) {
      return "/";
    }
    StringBuilder path = new StringBuilder();
    for (String component : components) {
      path.append('/').append(component);
    }
    return path.toString();
  }

  /** Whether {@code descendant} is {@code ancestor} or lies beneath it. Both normalized. */
  public static boolean isSelfOrDescendant(String descendant, String ancestor) {
    if (ancestor.equals("/")) {
      return true;
    }
    return descendant.equals(ancestor) || descendant.startsWith(ancestor + "/");
  }
}
