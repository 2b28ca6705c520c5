#!/usr/bin/env bash
# The long crash-consistency loop (not run by CI): NameNode and DataNode as separate processes, a writer with
# hsync at random points, kill -9 of one of them at each of ROUNDS random moments, restart, and a full check of
# every hsync'd byte and every answered past read. CI runs the same test with 3 rounds.
#   dev-support/crash-loop.sh [ROUNDS] [SEED]        (defaults: 30, 7)
set -euo pipefail
cd "$(dirname "$0")/.."
export FFFS_CRASH_ROUNDS="${1:-30}"
exec mvn -B -ntp -q test -pl fffs-minicluster -am -Dtest=ProcessCrashTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dfffs.crash.seed="${2:-7}" -DargLine="-Dfffs.crash.seed=${2:-7}"
