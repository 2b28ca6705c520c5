package io.fffs.common.usertime;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** Finds {@link UserTimeExtractor}s by name through {@link ServiceLoader}, once per name and class loader. */
public final class UserTimeExtractors {
  private static final ConcurrentMap<String, UserTimeExtractor> CACHE = new ConcurrentHashMap<>();

  private UserTimeExtractors() {}

  /**
   * The extractor called {@code name}, from the class path of this class's loader.
   *
   * @throws FffsException {@code INVALID_ARGUMENT} naming the unknown plug-in and the names that are available
   */
  public static UserTimeExtractor load(String name) throws FffsException {
    UserTimeExtractor cached = CACHE.get(name);
    if (cached != null) {
      return cached;
    }
    List<String> known = new ArrayList<>();
    for (UserTimeExtractor extractor : ServiceLoader.load(UserTimeExtractor.class,
        UserTimeExtractors.class.getClassLoader())) {
      if (extractor.name().equals(name)) {
        UserTimeExtractor raced = CACHE.putIfAbsent(name, extractor);
        return raced == null ? extractor : raced;
      }
      known.add(extractor.name());
    }
    throw new FffsException(ErrorCode.INVALID_ARGUMENT, "no user-time plug-in named '" + name
        + "' is on the class path (available: " + (known.isEmpty() ? "none" : String.join(", ", known))
        + "); put the jar that provides it on the DataNode's class path or fix fffs.usertime.plugin");
  }
}
