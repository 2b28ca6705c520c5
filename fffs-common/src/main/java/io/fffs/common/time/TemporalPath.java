package io.fffs.common.time;

import io.fffs.common.error.FffsException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * A path as a user wrote it, split into the plain path it names and the time it is read at (docs/design.md §2).
 * Immutable.
 *
 * <p>Grammar. At most one time marker per path, at the end of any component; it applies to the whole path:
 *
 * <pre>
 * marker = "@" ("s" | "u") time        ; system or user time
 *        | "@" iso                     ; bare ISO instant = system time
 *        | "@pin-" name                ; a pinned moment, by name (letters, digits, '.', '_', '-')
 * time   = millis ["." micros]         ; epoch milliseconds, optional 1-3 digit fraction of a millisecond
 *        | iso
 * iso    = 20251121T100000[.250]Z      ; basic form, fraction of a second 1-6 digits
 *        | 2025-11-21T10:00:00[.250]Z  ; extended form; its ':' only fits absolute paths and the Java API
 * </pre>
 *
 * <p>Times are UTC. The marker is the text after the last {@code @} of a component. Because names may contain
 * {@code @}, a suffix counts as a marker only when it looks like a time: {@code s} or {@code u} alone or followed
 * by a digit, the start of an ISO date ({@code dddd-} or {@code ddddddddT}), or a bare number. Any other suffix is
 * part of the name ({@code me@example.com}, {@code x@sales}, {@code report@v2}, {@code x@}). A suffix that looks
 * like a time but does not parse, a bare number (system or user time?), a second marker, and a marker-only
 * component other than the first of an absolute path ({@code /@s1/a}: the root at that time) are
 * {@code MALFORMED_TIME} errors rather than names, so that a typo never silently reads the present.
 *
 * <p>A pin marker names a moment the NameNode knows ({@code bin/fffs history pin}); until the caller has looked it
 * up and {@link #resolvePin resolved} it, the path has no {@link #timeSpec}. A suffix starting with {@code pin-}
 * is always a pin marker.
 *
 * <p>The syntax can be switched off with {@value #TEMPORAL_PATHS_KEY}; then every path is plain.
 */
public final class TemporalPath {
  /** Whether paths may carry time markers. Off, a name like {@code /a@s1} is just a name. */
  public static final String TEMPORAL_PATHS_KEY = "fs.fffs.temporal-paths";

  public static final boolean TEMPORAL_PATHS_DEFAULT = true;

  private final Path originalPath;
  private final Path plainPath;
  private final TimeSpec timeSpec;
  private final String markerText;
  /** The pin a {@code @pin-<name>} marker names, else null; {@link #timeSpec} is its moment once resolved. */
  private final String pinName;
  private final boolean pinResolved;
  /** {@link #originalPath}'s URI ending in '/', made on the first {@link #child} call (URI is immutable). */
  private volatile URI childBase;

  private TemporalPath(Path originalPath, Path plainPath, TimeSpec timeSpec, String markerText) {
    this(originalPath, plainPath, timeSpec, markerText, null, false);
  }

  private TemporalPath(Path originalPath, Path plainPath, TimeSpec timeSpec, String markerText, String pinName,
      boolean pinResolved) {
    this.originalPath = originalPath;
    this.plainPath = plainPath;
    this.timeSpec = timeSpec;
    this.markerText = markerText;
    this.pinName = pinName;
    this.pinResolved = pinResolved;
  }

  /**
   * Checks a pin name: 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit.
   *
   * @throws FffsException {@code MALFORMED_TIME} for any other name
   */
  public static String checkPinName(String name) throws FffsException {
    return TimeSpecParser.parsePin(TimeSpecParser.PIN_PREFIX + name, "in pin name '" + name + "'");
  }

  /** The path marker that reads pin {@code name}: {@code @pin-<name>}. */
  public static String pinMarker(String name) {
    return "@" + TimeSpecParser.PIN_PREFIX + name;
  }

  /** {@link #TEMPORAL_PATHS_KEY} read from {@code conf}. */
  public static boolean temporalPathsEnabled(Configuration conf) {
    return conf.getBoolean(TEMPORAL_PATHS_KEY, TEMPORAL_PATHS_DEFAULT);
  }

  /**
   * Parses a path with temporal paths enabled.
   *
   * @throws FffsException {@code MALFORMED_TIME} for a marker that does not parse, two markers, or a misplaced
   *     marker-only component
   */
  public static TemporalPath parse(Path path) throws FffsException {
    return parse(path, true);
  }

  /** {@link #parse(Path)} of {@code new Path(path)}. */
  public static TemporalPath parse(String path) throws FffsException {
    return parse(new Path(path), true);
  }

  /** {@link #parse(Path, boolean)} with the switch read from {@code conf}. */
  public static TemporalPath parse(Path path, Configuration conf) throws FffsException {
    return parse(path, temporalPathsEnabled(conf));
  }

  /**
   * Parses a path; when {@code enabled} is false nothing is parsed and the path is plain at the latest time.
   *
   * @throws FffsException {@code MALFORMED_TIME} as {@link #parse(Path)}, only when enabled
   */
  public static TemporalPath parse(Path path, boolean enabled) throws FffsException {
    Objects.requireNonNull(path, "path");
    URI uri = path.toUri();
    // Only the path part is split: '@' in the authority (user@host) is not a marker.
    if (!enabled || uri.getPath() == null || uri.getPath().indexOf('@') < 0) {
      return new TemporalPath(path, path, TimeSpec.latest(), "");
    }
    return new Splitter(path).split();
  }

  /**
   * The path {@code plain} read at {@code spec}: the marker appended to the last component ({@code /a/b@s1}), or
   * after the root ({@code /@s1}). {@code parse(withTime(p, s))} gives back {@code p} and {@code s}.
   *
   * @param spec the time; {@link TimeSpec#latest()} returns {@code plain} itself
   * @throws IllegalArgumentException if a component of {@code plain} already ends in something that reads as a
   *     time, which would make the result a path with two markers
   */
  public static Path withTime(Path plain, TimeSpec spec) {
    URI uri = plain.toUri();
    String path = uri.getPath();
    for (String component : path.split("/")) {
      int at = component.lastIndexOf('@');
      if (at >= 0 && looksLikeMarker(component.substring(at + 1))) {
        throw new IllegalArgumentException(
            "'" + component + "' in " + plain + " already reads as a time; cannot add " + spec.toMarker());
      }
    }
    if (spec.isLatest()) {
      return plain;
    }
    // The root's path is "/", so the same concatenation gives "/@s1" there and "/a/b@s1" elsewhere. Elsewhere a
    // trailing "/" (what Hadoop leaves of "a/.") goes, and the working directory ("") is ".": a marker-only
    // component may only follow the root.
    String base = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    return new Path(uri.getScheme(), uri.getAuthority(), (base.isEmpty() ? "." : base) + spec.toMarker());
  }

  /** The path as given, marker included. */
  public Path originalPath() {
    return originalPath;
  }

  /** The path without its marker, with the scheme and authority of the original. */
  public Path plainPath() {
    return plainPath;
  }

  /**
   * The time the path is read at; {@link TimeSpec#latest()} when it has no marker.
   *
   * @throws IllegalStateException for a pin marker not yet {@link #resolvePin resolved}: reading it at any other
   *     time would be reading the wrong moment
   */
  public TimeSpec timeSpec() {
    if (pinName != null && !pinResolved) {
      throw new IllegalStateException(originalPath + " names pin '" + pinName + "', which must be looked up first");
    }
    return timeSpec;
  }

  /** Whether the path carries a marker. */
  public boolean isTemporal() {
    return pinName != null || !timeSpec.isLatest();
  }

  /** The pin a {@code @pin-<name>} marker names, or null. */
  public String pinName() {
    return pinName;
  }

  /** This path with its pin marker resolved to the pinned moment (system time, µs). */
  public TemporalPath resolvePin(long micros) {
    if (pinName == null) {
      throw new IllegalStateException(originalPath + " has no pin marker");
    }
    return new TemporalPath(originalPath, plainPath, TimeSpec.system(micros), markerText, pinName, true);
  }

  /** The marker exactly as written, with its {@code @} (e.g. {@code @s1763719200000.25}); "" when none. */
  public String markerText() {
    return markerText;
  }

  /**
   * The path of a child of this directory that keeps the marker where the user wrote it, verbatim:
   * {@code /t@s1/part-0}, {@code /a@s1/b/part-0}, {@code /@s1/part-0}. A listing returns these so that a job
   * reading {@code /table@s…} reads every file at that time without knowing about time.
   *
   * @param name a single path component
   */
  public Path child(String name) {
    if (name.isEmpty() || name.indexOf('/') >= 0) {
      throw new IllegalArgumentException("not a single path component: '" + name + "'");
    }
    if (name.indexOf(':') >= 0 || name.equals(".") || name.equals("..")) {
      return new Path(originalPath, name); // Hadoop's own reading of such names, whatever it is
    }
    // The same path as new Path(originalPath, name), without its two parses of the whole URI (authority
    // included) per child, which would dominate a large listing's client time: the parent's URI is made once and
    // each child resolved against it, which reuses its parsed scheme and authority.
    try {
      return new Path(childBase().resolve(new URI(null, null, name, null)));
    } catch (URISyntaxException e) {
      return new Path(originalPath, name);
    }
  }

  private URI childBase() throws URISyntaxException {
    URI base = childBase;
    if (base == null) {
      URI parent = originalPath.toUri();
      String path = parent.getPath();
      base = new URI(parent.getScheme(), parent.getAuthority(), path.endsWith("/") ? path : path + "/", null,
          null);
      childBase = base;
    }
    return base;
  }

  /**
   * Equal when written the same way and read the same way. {@code /a@s1/b} and {@code /a/b@s1} are not equal:
   * they read the same data but their {@link #child children} differ.
   */
  @Override
  public boolean equals(Object other) {
    return other instanceof TemporalPath that
        && originalPath.equals(that.originalPath)
        && plainPath.equals(that.plainPath)
        && timeSpec.equals(that.timeSpec)
        && Objects.equals(pinName, that.pinName);
  }

  @Override
  public int hashCode() {
    return Objects.hash(originalPath, plainPath, timeSpec, pinName);
  }

  /** Whether the text after an {@code @} reads as a marker: a time, or a pin. */
  private static boolean looksLikeMarker(String body) {
    return TimeSpecParser.looksLikeTime(body) || TimeSpecParser.looksLikePin(body);
  }

  /** The original path; for a temporal path also the plain path and the time. */
  @Override
  public String toString() {
    if (pinName != null && !pinResolved) {
      return originalPath + " (" + plainPath + " at pin " + pinName + ")";
    }
    return isTemporal() ? originalPath + " (" + plainPath + " at " + timeSpec + ")" : originalPath.toString();
  }

  /** One pass over the components of one path, collecting the plain names and the one marker. */
  private static final class Splitter {
    private final Path path;
    private final URI uri;
    private final List<String> names = new ArrayList<>();
    private TimeSpec spec = TimeSpec.latest();
    private String marker = "";
    private String pin;

    Splitter(Path path) {
      this.path = path;
      this.uri = path.toUri();
    }

    TemporalPath split() throws FffsException {
      String text = uri.getPath();
      boolean absolute = text.startsWith("/");
      String[] components = (absolute ? text.substring(1) : text).split("/", -1);
      for (int i = 0; i < components.length; i++) {
        accept(components[i], absolute && i == 0);
      }
      if (marker.isEmpty()) {
        return new TemporalPath(path, path, spec, "");
      }
      String plain = (absolute ? "/" : "") + String.join("/", names);
      return new TemporalPath(path, new Path(uri.getScheme(), uri.getAuthority(), plain), spec, marker, pin,
          false);
    }

    private void accept(String component, boolean mayBeRootMarker) throws FffsException {
      int at = component.lastIndexOf('@');
      String subject = "in path component '" + component + "' of " + path;
      String pinHere = at >= 0 && TimeSpecParser.looksLikePin(component.substring(at + 1))
          ? TimeSpecParser.parsePin(component.substring(at + 1), subject) : null;
      Optional<TimeSpec> time = pinHere != null ? Optional.of(TimeSpec.latest())
          : at < 0 ? Optional.empty() : TimeSpecParser.parseSuffix(component.substring(at + 1), subject);
      if (time.isEmpty()) {
        if (!component.isEmpty()) {
          names.add(component);
        }
        return;
      }
      String name = component.substring(0, at);
      String thisMarker = component.substring(at);
      int earlier = name.lastIndexOf('@');
      if (earlier >= 0 && looksLikeMarker(name.substring(earlier + 1))) {
        throw twoMarkers(name.substring(earlier), thisMarker);
      }
      if (!marker.isEmpty()) {
        throw twoMarkers(marker, thisMarker);
      }
      if (name.equals(".") || name.equals("..")) {
        throw TimeSpecParser.malformed("in " + path, "the marker '" + thisMarker + "' is on '" + name + "'; put it on"
            + " a named component (/a/b" + thisMarker + ") or first in an absolute path (/" + thisMarker + "/a/b)");
      }
      if (name.isEmpty() && !mayBeRootMarker) {
        throw TimeSpecParser.malformed(
            "in " + path,
            "component '" + component + "' has no name; a component that is only a marker must come first in an"
                + " absolute path (/" + thisMarker + "/a/b reads /a/b at that time)");
      }
      if (!name.isEmpty()) {
        names.add(name);
      }
      spec = time.get();
      marker = thisMarker;
      pin = pinHere;
    }

    private FffsException twoMarkers(String first, String second) {
      return TimeSpecParser.malformed(
          "in " + path,
          "two time markers '" + first + "' and '" + second + "'; a path takes at most one, at the end of any"
              + " component");
    }
  }
}
