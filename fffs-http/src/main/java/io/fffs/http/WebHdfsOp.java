package io.fffs.http;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import java.util.Locale;

/**
 * The operations the gateway serves, each with its HTTP method and whether it reads the past, writes, or moves file
 * bytes (those answer the first request with a redirect to a data gateway, as WebHDFS's NameNode does).
 */
enum WebHdfsOp {
  OPEN("GET", Kind.READ, true),
  GETFILESTATUS("GET", Kind.READ, false),
  LISTSTATUS("GET", Kind.READ, false),
  LISTSTATUS_BATCH("GET", Kind.READ, false),
  GETCONTENTSUMMARY("GET", Kind.READ, false),
  GETHOMEDIRECTORY("GET", Kind.READ, false),
  GETFILECHECKSUM("GET", Kind.READ, true),
  GETFILEBLOCKLOCATIONS("GET", Kind.READ, false),
  /** FFFS: every past state of a path. */
  GETVERSIONS("GET", Kind.READ, false),
  /** FFFS: what changed in a tree between the request's time and {@code to=} (default: now). */
  GETHISTORYDIFF("GET", Kind.READ, false),
  GETSERVERDEFAULTS("GET", Kind.READ, false),
  GETSTATUS("GET", Kind.READ, false),
  GETTRASHROOT("GET", Kind.READ, false),
  GETDELEGATIONTOKEN("GET", Kind.READ, false),
  RENEWDELEGATIONTOKEN("PUT", Kind.WRITE, false),
  CANCELDELEGATIONTOKEN("PUT", Kind.WRITE, false),
  CREATE("PUT", Kind.WRITE, true),
  MKDIRS("PUT", Kind.WRITE, false),
  RENAME("PUT", Kind.WRITE, false),
  SETPERMISSION("PUT", Kind.WRITE, false),
  SETOWNER("PUT", Kind.WRITE, false),
  SETTIMES("PUT", Kind.WRITE, false),
  SETREPLICATION("PUT", Kind.WRITE, false),
  APPEND("POST", Kind.WRITE, true),
  TRUNCATE("POST", Kind.WRITE, false),
  DELETE("DELETE", Kind.WRITE, false),

  // HDFS features FFFS does not have: each answers UNSUPPORTED saying what to use instead (docs/hadoop.md).
  CONCAT("POST", Unsupported.CONCAT),
  GETXATTRS("GET", Unsupported.XATTRS),
  LISTXATTRS("GET", Unsupported.XATTRS),
  SETXATTR("PUT", Unsupported.XATTRS),
  REMOVEXATTR("PUT", Unsupported.XATTRS),
  GETACLSTATUS("GET", Unsupported.ACLS),
  SETACL("PUT", Unsupported.ACLS),
  MODIFYACLENTRIES("PUT", Unsupported.ACLS),
  REMOVEACLENTRIES("PUT", Unsupported.ACLS),
  REMOVEDEFAULTACL("PUT", Unsupported.ACLS),
  REMOVEACL("PUT", Unsupported.ACLS),
  ALLOWSNAPSHOT("PUT", Unsupported.SNAPSHOTS),
  DISALLOWSNAPSHOT("PUT", Unsupported.SNAPSHOTS),
  CREATESNAPSHOT("PUT", Unsupported.SNAPSHOTS),
  RENAMESNAPSHOT("PUT", Unsupported.SNAPSHOTS),
  DELETESNAPSHOT("DELETE", Unsupported.SNAPSHOTS),
  GETSNAPSHOTDIFF("GET", Unsupported.SNAPSHOTS),
  GETSNAPSHOTDIFFLISTING("GET", Unsupported.SNAPSHOTS),
  GETSNAPSHOTTABLEDIRECTORYLIST("GET", Unsupported.SNAPSHOTS),
  GETSNAPSHOTLIST("GET", Unsupported.SNAPSHOTS);

  /** Why FFFS refuses an HDFS operation, and what serves the same need. */
  static final class Unsupported {
    static final String CONCAT = "FFFS does not concatenate files: a file's blocks belong to it for its whole"
        + " history; copy the sources into one file instead";
    static final String XATTRS = "FFFS keeps no extended attributes";
    static final String ACLS = "FFFS has no ACLs: access is the owner, group and permission bits"
        + " (GETFILESTATUS, SETPERMISSION, SETOWNER)";
    static final String SNAPSHOTS = "FFFS has no snapshots because every moment is readable: add a time to any"
        + " read (a path marker such as /dir@s1763719200000, or at=), keep a moment with a pin (bin/fffs history pin;"
        + " read /dir@pin-NAME), and list what changed between two moments with op=GETHISTORYDIFF";

    private Unsupported() {}
  }

  private WebHdfsOp(String method, String unsupported) {
    this.method = method;
    this.kind = method.equals("GET") ? Kind.READ : Kind.WRITE;
    this.redirected = false;
    this.unsupported = unsupported;
  }

  /** Whether an op reads (a time may be given) or changes the file system (the present only). */
  enum Kind { READ, WRITE }

  final String method;
  final Kind kind;
  /** Served in two steps: the first answers with a redirect to the gateway that moves the bytes. */
  final boolean redirected;
  /** Null for an op FFFS serves; else why it is refused ({@code UNSUPPORTED}) and what to use instead. */
  final String unsupported;

  WebHdfsOp(String method, Kind kind, boolean redirected) {
    this.method = method;
    this.kind = kind;
    this.redirected = redirected;
    this.unsupported = null;
  }

  /** Whether the request carries the file's bytes. */
  boolean takesBody() {
    return this == CREATE || this == APPEND;
  }

  /** The op named {@code name} (any case) for HTTP method {@code method}; WebHDFS's wording when there is none. */
  static WebHdfsOp parse(String name, String method) throws FffsException {
    if (name == null || name.isEmpty()) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "the op parameter is missing; e.g. ?op=GETFILESTATUS");
    }
    WebHdfsOp op;
    try {
      op = valueOf(name.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      // Hadoop's WebHdfsFileSystem falls back to older ops on exactly this wording.
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "Invalid value for webhdfs parameter \"op\": "
          + Printable.of(name, 64) + " is not an operation this server supports");
    }
    if (!op.method.equals(method)) {
      throw new FffsException(ErrorCode.INVALID_ARGUMENT, "Invalid value for webhdfs parameter \"op\": " + op
          + " is a " + op.method + " operation, not " + Printable.of(method, 16));
    }
    return op;
  }
}
