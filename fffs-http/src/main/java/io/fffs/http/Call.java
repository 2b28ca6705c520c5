package io.fffs.http;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * One parsed request: the op, the path and time, the user, and the other parameters with typed getters that refuse
 * malformed values in WebHDFS's words ({@code Invalid value for webhdfs parameter "offset": ...}).
 */
final class Call {
  private static final Pattern OCTAL_PERMISSION = Pattern.compile("[01]?[0-7]{1,3}");
  /** ASCII digits only: Long.parseLong would also take other scripts' digits. */
  private static final Pattern WHOLE_NUMBER = Pattern.compile("-?[0-9]{1,19}");

  final WebHdfsOp op;
  final RequestPath path;
  final String user;
  final Map<String, String> parameters;

  Call(WebHdfsOp op, RequestPath path, String user, Map<String, String> parameters) {
    this.op = op;
    this.path = path;
    this.user = user;
    this.parameters = parameters;
  }

  /** The request is the second step of a two-step op (it carries the NameNode address, as HDFS's do). */
  boolean isRedirected() {
    return parameters.containsKey("namenoderpcaddress");
  }

  String string(String name) {
    return parameters.get(name);
  }

  String required(String name) throws FffsException {
    String value = parameters.get(name);
    if (value == null || value.isEmpty()) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, op + " needs the parameter \"" + name + "\"");
    }
    return value;
  }

  long longValue(String name, long defaultValue, long min) throws FffsException {
    String value = parameters.get(name);
    if (value == null || value.isEmpty()) {
      return defaultValue;
    }
    long parsed;
    try {
      if (!WHOLE_NUMBER.matcher(value).matches()) {
        throw new NumberFormatException(value);
      }
      parsed = Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw invalid(name, value, "not a whole number");
    }
    if (parsed < min) {
      throw invalid(name, value, "less than " + min);
    }
    return parsed;
  }

  /** A long parameter, or null when absent. */
  Long optionalLong(String name, long min) throws FffsException {
    return parameters.containsKey(name) && !parameters.get(name).isEmpty() ? longValue(name, 0, min) : null;
  }

  boolean bool(String name, boolean defaultValue) throws FffsException {
    String value = parameters.get(name);
    if (value == null || value.isEmpty()) {
      return defaultValue;
    }
    switch (value.toLowerCase(Locale.ROOT)) {
      case "true":
        return true;
      case "false":
        return false;
      default:
        throw invalid(name, value, "neither true nor false");
    }
  }

  short replication(short defaultValue) throws FffsException {
    long value = longValue("replication", defaultValue, 1);
    if (value > Short.MAX_VALUE) {
      throw invalid("replication", parameters.get("replication"), "more than " + Short.MAX_VALUE);
    }
    return (short) value;
  }

  /** {@code createflag} ({@code CREATE,OVERWRITE,...}, any case), as Hadoop's client sends it. */
  EnumSet<CreateFlag> createFlags() throws FffsException {
    EnumSet<CreateFlag> flags = EnumSet.noneOf(CreateFlag.class);
    String value = parameters.get("createflag");
    if (value == null || value.isEmpty()) {
      return flags;
    }
    for (String flag : value.split(",")) {
      try {
        flags.add(CreateFlag.valueOf(flag.trim().toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw invalid("createflag", value, "not a list of CREATE, OVERWRITE, APPEND, ...");
      }
    }
    return flags;
  }

  FsPermission permission(short defaultValue) throws FffsException {
    String value = parameters.get("permission");
    if (value == null || value.isEmpty()) {
      return new FsPermission(defaultValue);
    }
    if (!OCTAL_PERMISSION.matcher(value).matches()) {
      throw invalid("permission", value, "not an octal mode between 0 and 1777");
    }
    return new FsPermission(Short.parseShort(value, 8));
  }

  private FffsException invalid(String name, String value, String why) {
    return new FffsException(ErrorCode.INVALID_ARGUMENT, "Invalid value for webhdfs parameter \"" + name + "\": "
        + Printable.of(value, 64) + " is " + why);
  }
}
