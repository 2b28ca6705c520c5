package io.fffs.common.usertime;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Finds {@link UserTimeExtractor}s by name through {@link ServiceLoader}, once per name and class loader. A name may
 * carry parameters after its first ':' ({@code ts64:fixed=32}), which go to
 * {@link UserTimeExtractor#withParameters(String)} of the extractor named before it.
 */
public final class UserTimeExtractors {
  private static final ConcurrentMap<String, UserTimeExtractor> CACHE = new ConcurrentHashMap<>();

  private UserTimeExtractors() {}

  /**
   * The extractor called {@code name} (configured by the parameters after its first ':', if any), from the class
   * path of this class's loader.
   *
   * @throws FffsException {@code INVALID_ARGUMENT} naming the unknown plug-in and the names that are available, or
   *     the parameters the plug-in does not accept
   */
  public static UserTimeExtractor load(String name) throws FffsException {
    UserTimeExtractor cached = CACHE.get(name);
    if (cached != null) {
      return cached;
    }
    int colon = name.indexOf(':');
    String base = colon < 0 ? name : name.substring(0, colon);
    List<String> known = new ArrayList<>();
    for (UserTimeExtractor found : ServiceLoader.load(UserTimeExtractor.class,
        UserTimeExtractors.class.getClassLoader())) {
      if (found.name().equals(base)) {
        UserTimeExtractor extractor = colon < 0 ? found : found.withParameters(name.substring(colon + 1));
        UserTimeExtractor raced = CACHE.putIfAbsent(name, extractor);
        return raced == null ? extractor : raced;
      }
      known.add(found.name());
    }
    throw new FffsException(ErrorCode.INVALID_ARGUMENT, "no user-time plug-in named '" + base
        + "' is on the class path (available: " + (known.isEmpty() ? "none" : String.join(", ", known))
        + "); put the jar that provides it on the DataNode's class path or fix fffs.usertime.plugin");
  }
}
