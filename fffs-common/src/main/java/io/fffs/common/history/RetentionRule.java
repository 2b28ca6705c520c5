package io.fffs.common.history;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.common.proto.HistoryProtos.RetentionRuleProto;
import io.fffs.common.proto.HistoryProtos.RetentionTierProto;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How much history a directory subtree keeps (docs/history.md). Either everything ({@link #KEEP_ALL}, the default
 * of FFFS), or:
 * <ul>
 *   <li>a <em>window</em>: every moment within {@code keepFor} of now (0: only the present);</li>
 *   <li>thinning <em>tiers</em>: below the window, one moment per {@code every} within {@code within} of now — the
 *       multiples of {@code every} since the epoch, so a kept moment stays the same moment until it ages out;</li>
 *   <li>{@code keepVersions}: every file also keeps the moments of its N newest versions, however old.</li>
 * </ul>
 * Immutable. The text form, also what {@link #toString} gives: terms separated by spaces or commas —
 * {@code none} (keep everything), a duration such as {@code 90s}, {@code 30m}, {@code 1h}, {@code 7d}, {@code 2w}
 * (the window), {@code EVERY/WITHIN} such as {@code 1h/1d} (a tier), {@code Nv} such as {@code 3v} (versions).
 * Example: {@code 1h 1h/1d 1d/30d 3v}: everything within the last hour, hourly moments within a day, daily ones
 * within 30 days, and at least 3 versions of each file.
 */
public final class RetentionRule {
  /** Keep every moment: FFFS's behaviour where no rule applies. */
  public static final RetentionRule KEEP_ALL = new RetentionRule(true, 0, 0, List.of());
  /** Moments a tier may keep at most (within / every), so that a rule cannot ask for millions. */
  public static final long MAX_TIER_MOMENTS = 100_000;

  /** A thinning tier: one moment per {@code everyMicros} within {@code withinMicros} of now. */
  public record Tier(long everyMicros, long withinMicros) {}

  private static final Pattern DURATION = Pattern.compile("(\\d+)(us|ms|s|m|h|d|w)");
  private static final Pattern VERSIONS = Pattern.compile("(\\d+)(v|versions?)");

  private final boolean keepAll;
  private final long keepForMicros;
  private final int keepVersions;
  private final List<Tier> tiers;

  private RetentionRule(boolean keepAll, long keepForMicros, int keepVersions, List<Tier> tiers) {
    this.keepAll = keepAll;
    this.keepForMicros = keepForMicros;
    this.keepVersions = keepVersions;
    this.tiers = List.copyOf(tiers);
  }

  /**
   * A bounded rule.
   *
   * @throws FffsException {@code INVALID_ARGUMENT} for a negative duration or count, or a tier that is empty or
   *     keeps more than {@link #MAX_TIER_MOMENTS} moments
   */
  public static RetentionRule of(long keepForMicros, int keepVersions, List<Tier> tiers) throws FffsException {
    if (keepForMicros < 0 || keepVersions < 0) {
      throw invalid("durations and version counts must not be negative");
    }
    for (Tier tier : tiers) {
      if (tier.everyMicros() <= 0 || tier.withinMicros() <= 0) {
        throw invalid("a tier needs a positive step and span, got " + tier);
      }
      if (tier.withinMicros() / tier.everyMicros() > MAX_TIER_MOMENTS) {
        throw invalid("the tier " + duration(tier.everyMicros()) + "/" + duration(tier.withinMicros())
            + " would keep more than " + MAX_TIER_MOMENTS + " moments; use a longer step");
      }
    }
    return new RetentionRule(false, keepForMicros, keepVersions, tiers);
  }

  /**
   * Parses the text form ({@code none}, or terms such as {@code 1h 1h/1d 3v}).
   *
   * @throws FffsException {@code INVALID_ARGUMENT} quoting the term that does not parse
   */
  public static RetentionRule parse(String text) throws FffsException {
    String trimmed = text == null ? "" : text.trim();
    if (trimmed.equalsIgnoreCase("none") || trimmed.equalsIgnoreCase("all")) {
      return KEEP_ALL;
    }
    long keepFor = -1;
    int versions = 0;
    List<Tier> tiers = new ArrayList<>();
    for (String term : trimmed.split("[\\s,]+")) {
      if (term.isEmpty()) {
        continue;
      }
      String lower = term.toLowerCase(Locale.ROOT);
      Matcher count = VERSIONS.matcher(lower);
      int slash = lower.indexOf('/');
      if (count.matches()) {
        versions = Math.max(versions, parseInt(count.group(1), term));
      } else if (slash > 0) {
        tiers.add(new Tier(parseDuration(lower.substring(0, slash), term),
            parseDuration(lower.substring(slash + 1), term)));
      } else if (keepFor < 0) {
        keepFor = parseDuration(lower, term);
      } else {
        throw invalid("'" + term + "' is a second window in '" + text + "'; a rule has one");
      }
    }
    if (keepFor < 0 && versions == 0 && tiers.isEmpty()) {
      throw invalid("'" + text + "' is not a retention rule; write none, or terms such as 1h, 1h/1d, 3v");
    }
    return of(Math.max(0, keepFor), versions, tiers);
  }

  /** A duration such as {@code 90s}, {@code 30m}, {@code 1h}, {@code 7d}, {@code 2w}, {@code 500ms}, in µs. */
  public static long parseDuration(String text, String term) throws FffsException {
    Matcher m = DURATION.matcher(text);
    if (!m.matches()) {
      throw invalid("'" + term + "': '" + text + "' is not a duration (e.g. 90s, 30m, 1h, 7d, 2w)");
    }
    long unit;
    switch (m.group(2)) {
      case "us":
        unit = 1L;
        break;
      case "ms":
        unit = 1_000L;
        break;
      case "s":
        unit = 1_000_000L;
        break;
      case "m":
        unit = 60_000_000L;
        break;
      case "h":
        unit = 3_600_000_000L;
        break;
      case "d":
        unit = 86_400_000_000L;
        break;
      default:
        unit = 604_800_000_000L;
    }
    try {
      return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
    } catch (NumberFormatException | ArithmeticException e) {
      throw invalid("'" + term + "' is too long a duration");
    }
  }

  private static int parseInt(String digits, String term) throws FffsException {
    try {
      return Integer.parseInt(digits);
    } catch (NumberFormatException e) {
      throw invalid("'" + term + "' is too many versions");
    }
  }

  private static FffsException invalid(String why) {
    return new FffsException(ErrorCode.INVALID_ARGUMENT, "bad retention rule: " + why);
  }

  public boolean keepsAll() {
    return keepAll;
  }

  /** The window: every moment within this of now is kept (0: only the present). */
  public long keepForMicros() {
    return keepForMicros;
  }

  /** Versions of each file kept however old; 0 for none. */
  public int keepVersions() {
    return keepVersions;
  }

  public List<Tier> tiers() {
    return tiers;
  }

  /** Where the window starts at {@code nowMicros}: the history horizon; 0 when everything is kept. */
  public long horizon(long nowMicros) {
    return keepAll ? 0 : Math.max(0, nowMicros - keepForMicros);
  }

  /**
   * The moments this rule keeps at {@code nowMicros} for every path it governs: the window and the tiers' moments
   * below it (a file's newest versions come on top, per file).
   */
  public MomentSet moments(long nowMicros) {
    if (keepAll) {
      return MomentSet.ALL;
    }
    long horizon = horizon(nowMicros);
    MomentSet.Builder kept = new MomentSet.Builder().add(horizon, MomentSet.END);
    for (Tier tier : tiers) {
      long every = tier.everyMicros();
      long oldest = Math.max(0, nowMicros - tier.withinMicros());
      for (long moment = (oldest + every - 1) / every * every; moment < horizon; moment += every) {
        kept.add(moment, moment + 1);
      }
    }
    return kept.build();
  }

  /**
   * Whether this rule keeps {@code micros} at {@code nowMicros}: {@code moments(nowMicros).contains(micros)},
   * without building the set (a read asks this; a rule may keep tens of thousands of tier moments).
   */
  public boolean keeps(long nowMicros, long micros) {
    if (keepAll) {
      return true;
    }
    long horizon = horizon(nowMicros);
    if (micros >= horizon) {
      return true;
    }
    for (Tier tier : tiers) {
      if (micros % tier.everyMicros() == 0 && micros >= nowMicros - tier.withinMicros()) {
        return true;
      }
    }
    return false;
  }

  /** The latest moment before {@code micros} this rule keeps at {@code nowMicros}, or -1 if none. */
  public long latestKeptBefore(long nowMicros, long micros) {
    if (keepAll) {
      return micros - 1;
    }
    long horizon = horizon(nowMicros);
    if (micros > horizon) {
      return micros - 1;
    }
    long best = -1;
    for (Tier tier : tiers) {
      long every = tier.everyMicros();
      long candidate = (micros - 1) / every * every;
      if (micros > 0 && candidate >= Math.max(0, nowMicros - tier.withinMicros())) {
        best = Math.max(best, candidate);
      }
    }
    return best;
  }

  public RetentionRuleProto toProto() {
    RetentionRuleProto.Builder proto = RetentionRuleProto.newBuilder();
    if (keepAll) {
      return proto.setKeepAll(true).build();
    }
    proto.setKeepForMicros(keepForMicros).setKeepVersions(keepVersions);
    for (Tier tier : tiers) {
      proto.addTiers(RetentionTierProto.newBuilder().setEveryMicros(tier.everyMicros())
          .setWithinMicros(tier.withinMicros()));
    }
    return proto.build();
  }

  public static RetentionRule fromProto(RetentionRuleProto proto) {
    if (proto.getKeepAll()) {
      return KEEP_ALL;
    }
    List<Tier> tiers = new ArrayList<>();
    for (RetentionTierProto tier : proto.getTiersList()) {
      tiers.add(new Tier(tier.getEveryMicros(), tier.getWithinMicros()));
    }
    return new RetentionRule(false, proto.getKeepForMicros(), proto.getKeepVersions(), tiers);
  }

  /** The rule in words, for messages: {@code keep 1h, 1 moment per 1h within 1d, at least 3 versions}. */
  public String describe() {
    if (keepAll) {
      return "keep everything";
    }
    StringBuilder text = new StringBuilder("keep ").append(keepForMicros == 0 ? "only the present"
        : duration(keepForMicros));
    for (Tier tier : tiers) {
      text.append(", 1 moment per ").append(duration(tier.everyMicros())).append(" within ")
          .append(duration(tier.withinMicros()));
    }
    if (keepVersions > 0) {
      text.append(", at least ").append(keepVersions).append(keepVersions == 1 ? " version" : " versions");
    }
    return text.toString();
  }

  /** A duration in the largest unit that divides it: {@code 1h}, {@code 90s}, {@code 1500ms}. */
  public static String duration(long micros) {
    long[] units = {604_800_000_000L, 86_400_000_000L, 3_600_000_000L, 60_000_000L, 1_000_000L, 1_000L};
    String[] names = {"w", "d", "h", "m", "s", "ms"};
    for (int i = 0; i < units.length; i++) {
      if (micros != 0 && micros % units[i] == 0) {
        return micros / units[i] + names[i];
      }
    }
    return micros == 0 ? "0s" : micros + "us";
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof RetentionRule)) {
      return false;
    }
    RetentionRule o = (RetentionRule) other;
    return keepAll == o.keepAll && keepForMicros == o.keepForMicros && keepVersions == o.keepVersions
        && tiers.equals(o.tiers);
  }

  @Override
  public int hashCode() {
    return Objects.hash(keepAll, keepForMicros, keepVersions, tiers);
  }

  /** The text form, which {@link #parse} reads back: {@code none}, or e.g. {@code 1h 1h/1d 3v}. */
  @Override
  public String toString() {
    if (keepAll) {
      return "none";
    }
    StringBuilder text = new StringBuilder(duration(keepForMicros));
    for (Tier tier : tiers) {
      text.append(' ').append(duration(tier.everyMicros())).append('/').append(duration(tier.withinMicros()));
    }
    if (keepVersions > 0) {
      text.append(' ').append(keepVersions).append('v');
    }
    return text.toString();
  }
}
