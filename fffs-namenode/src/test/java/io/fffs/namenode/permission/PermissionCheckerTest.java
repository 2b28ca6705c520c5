package io.fffs.namenode.permission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fffs.common.error.ErrorCode;
import io.fffs.common.error.FffsException;
import io.fffs.namenode.namespace.InodeState;
import io.fffs.namenode.namespace.Namespace;
import io.fffs.namenode.permission.PermissionChecker.Access;
import java.util.List;
import org.junit.jupiter.api.Test;

class PermissionCheckerTest {
  private static final Caller ALICE = new Caller("alice", List.of("staff"));
  private static final Caller BOB = new Caller("bob", List.of("staff", "users"));
  private static final Caller CAROL = new Caller("carol", List.of("users"));
  private static final Caller ROOT = new Caller("hdfs", List.of());
  private static final Caller ADMIN = new Caller("dave", List.of("supergroup"));

  private final PermissionChecker checker = new PermissionChecker(true, "hdfs", "supergroup");

  /** A state owned by alice:staff with {@code mode}. */
  private static InodeState owned(int mode) {
    return Namespace.format("c", "alice", "staff", (short) mode).root().latest();
  }

  private void assertDenied(Caller caller, InodeState state, Access access, String detail) {
    assertThatThrownBy(() -> checker.check(caller, state, "/p", access))
        .isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
          assertThat(e.detail()).isEqualTo(detail);
        });
  }

  private void assertAllowed(Caller caller, InodeState state, Access access) {
    assertThatCode(() -> checker.check(caller, state, "/p", access)).doesNotThrowAnyException();
  }

  @Test
  void theOwnerGetsOnlyTheOwnerBitsEvenWhenGroupAndOthersGetMore() {
    InodeState state = owned(0077);
    assertDenied(ALICE, state, Access.READ, "user alice lacks read permission on /p (alice:staff 077)");
    assertAllowed(BOB, state, Access.ALL);
    assertAllowed(CAROL, state, Access.ALL);
  }

  @Test
  void aGroupMemberGetsTheGroupBitsAndOthersTheOtherBits() {
    InodeState state = owned(0751);
    assertAllowed(BOB, state, Access.READ_EXECUTE);
    assertDenied(BOB, state, Access.WRITE, "user bob lacks write permission on /p (alice:staff 751)");
    assertAllowed(CAROL, state, Access.EXECUTE);
    assertDenied(CAROL, state, Access.READ, "user carol lacks read permission on /p (alice:staff 751)");
    assertAllowed(ALICE, state, Access.ALL);
  }

  @Test
  void aCombinedAccessNeedsEveryOneOfItsBits() {
    InodeState state = owned(0740);
    assertAllowed(BOB, state, Access.READ);
    assertDenied(BOB, state, Access.READ_EXECUTE,
        "user bob lacks read and execute permission on /p (alice:staff 740)");
    assertDenied(ALICE, owned(0600), Access.ALL,
        "user alice lacks read, write and execute permission on /p (alice:staff 600)");
  }

  @Test
  void theMessageShowsOnlyThePermissionBits() {
    assertDenied(CAROL, owned(01750), Access.EXECUTE,
        "user carol lacks execute (traverse) permission on /p (alice:staff 750)");
  }

  @Test
  void theSuperUserAndTheSuperGroupPassEveryCheck() throws FffsException {
    InodeState none = owned(0);
    assertAllowed(ROOT, none, Access.ALL);
    assertAllowed(ADMIN, none, Access.ALL);
    checker.checkOwner(ROOT, none, "/p");
    checker.checkSuperUser(ADMIN, "change the owner of /p");
    assertThat(checker.isSuperUser(ROOT)).isTrue();
    assertThat(checker.isSuperUser(ADMIN)).isTrue();
    assertThat(checker.isSuperUser(ALICE)).isFalse();
  }

  @Test
  void withPermissionsOffEveryoneIsTheSuperUser() {
    PermissionChecker off = new PermissionChecker(false, "hdfs", "supergroup");
    assertThat(off.isSuperUser(CAROL)).isTrue();
    assertThatCode(() -> off.check(CAROL, owned(0), "/p", Access.ALL)).doesNotThrowAnyException();
    assertThatCode(() -> off.checkSuperUser(CAROL, "anything")).doesNotThrowAnyException();
  }

  @Test
  void onlyTheOwnerOrTheSuperUserPassesTheOwnerCheck() throws FffsException {
    InodeState state = owned(0777);
    checker.checkOwner(ALICE, state, "/p");
    assertThatThrownBy(() -> checker.checkOwner(BOB, state, "/p"))
        .isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
          assertThat(e.detail()).isEqualTo("user bob is not the owner of /p (owned by alice)");
        });
  }

  @Test
  void theSuperUserCheckNamesWhoMay() {
    assertThatThrownBy(() -> checker.checkSuperUser(ALICE, "change the owner of /p"))
        .isInstanceOfSatisfying(FffsException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.ACCESS_DENIED);
          assertThat(e.detail()).isEqualTo("user alice may not change the owner of /p: only the superuser (hdfs"
              + " or group supergroup) may");
        });
  }
}
