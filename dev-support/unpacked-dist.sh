#!/usr/bin/env bash
# Prints the home of an unpacked FFFS tarball for the dev-support scripts that run bin/fffs as a user would:
# UNPACKED when given, else fffs-dist/target/fffs-*.tar.gz (built when missing) unpacked under WORK/dist.
#
#   home="$(dev-support/unpacked-dist.sh WORK [UNPACKED])"
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$1"
home="${2:-}"
if [ -z "$home" ]; then
  tarball="$(ls "$repo"/fffs-dist/target/fffs-*.tar.gz 2>/dev/null | head -1 || true)"
  if [ -z "$tarball" ]; then
    (cd "$repo" && mvn -B -ntp -q package -pl fffs-dist -am -DskipTests -Djacoco.skip=true) >&2
    tarball="$(ls "$repo"/fffs-dist/target/fffs-*.tar.gz | head -1)"
  fi
  mkdir -p "$work/dist"
  tar xzf "$tarball" -C "$work/dist"
  home="$(ls -d "$work"/dist/fffs-*/ | head -1)"
fi
home="${home%/}"
[ -x "$home/bin/fffs" ] || { echo "unpacked-dist.sh: no bin/fffs under $home" >&2; exit 2; }
echo "$home"
