#!/usr/bin/env bash
# The long crash-consistency loops (not run by CI), nodes as separate processes killed with SIGKILL:
#  - ProcessCrashTest: one NameNode and one DataNode, a writer hsyncing; each kill lands after the writer is done.
#  - InFlightCrashTest: one NameNode and three DataNodes (replication 2); the NameNode, a DataNode or both are killed
#    while two writers append and hsync, a third client creates, renames, deletes and truncates, and a fourth writes
#    and deletes files under a 0s retention rule (history collection and the segment cleaner at work); a killed
#    DataNode stays down long enough at times for re-replication to start. Its second method makes every kill a
#    power loss of the killed node: its arena is dropped and each edit-log and segment file is cut back to its last
#    fsync, sometimes keeping a torn part of the rest.
# Every round checks every hsync'd byte, every acknowledged namespace change, and every past read answered before.
# CI runs each with 3 rounds.
#   dev-support/crash-loop.sh [ROUNDS] [SEED] [TESTS]   (defaults: 30, 7, ProcessCrashTest,InFlightCrashTest)
set -euo pipefail
cd "$(dirname "$0")/.."
export FFFS_CRASH_ROUNDS="${1:-30}" FFFS_CRASH_POWER_ROUNDS="${1:-30}"
# Only the default surefire execution: -Dtest would also run the tests in the module's Kerberos and UCX executions.
exec mvn -B -ntp -q -pl fffs-minicluster -am test-compile surefire:test@default-test -Djacoco.skip=true \
  -Dtest="${3:-ProcessCrashTest,InFlightCrashTest}" -Dsurefire.failIfNoSpecifiedTests=false \
  -Dfffs.crash.seed="${2:-7}" -DargLine="-Dfffs.crash.seed=${2:-7}"
