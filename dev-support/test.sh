#!/usr/bin/env bash
# The one test command (README "Quick start", .ci/run): installs what a fresh machine lacks, then builds and runs
# every test of every module with `mvn verify`. Extra arguments go to Maven (e.g. -pl fffs-common -Dtest=Foo).
# Long soak, crash-loop and benchmark runs are separate commands (README) and are not run here.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
java_major() { javac -version 2>&1 | sed -E 's/^javac ([0-9]+).*/\1/'; }
if ! command -v javac >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ]; then
  missing+=(openjdk-17-jdk-headless)
fi
command -v mvn >/dev/null 2>&1 || missing+=(maven)
if [ ${#missing[@]} -gt 0 ]; then
  echo "test.sh: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

# UCX for the RDMA transport's tests (fffs-rdma, docs/rdma.md): jucx 1.18.1 needs UCP API 1.18; Debian's libucx0
# is 1.13.1 (it works, but warns on every context and lacks UCX_MM_ERROR_HANDLING). UCX 1.18.1 comes as the PyPI
# wheel libucx-cu12 (no CUDA needed); it is unpacked under ~/.cache/fffs and reaches only the forked test JVMs of
# fffs-rdma, through LD_LIBRARY_PATH (the pom's fffs.ucx.lib). Nothing is installed system-wide.
ucx_home="${FFFS_UCX_HOME:-$HOME/.cache/fffs/ucx-1.18.1}"
if [ ! -e "$ucx_home/lib/libucp.so.0" ]; then
  echo "test.sh: installing UCX 1.18.1 (PyPI wheel libucx-cu12) into $ucx_home" >&2
  if ! python3 -m pip --version >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-pip
  fi
  ucx_tmp="$(mktemp -d)"
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    libucx-cu12==1.18.1 -d "$ucx_tmp"
  python3 -m zipfile -e "$ucx_tmp"/libucx_cu12-1.18.1-*.whl "$ucx_tmp/wheel"
  mkdir -p "$ucx_home"
  rm -rf "$ucx_home/lib" "$ucx_home/bin"
  cp -R "$ucx_tmp/wheel/libucx/lib" "$ucx_tmp/wheel/libucx/bin" "$ucx_home/"
  find "$ucx_home" \( -name "*.a" -o -name "*.la" \) -delete
  chmod -R a+rX "$ucx_home" && chmod a+x "$ucx_home"/bin/*
  rm -rf "$ucx_tmp"
fi

exec mvn -B -ntp verify -Dfffs.ucx.lib="$ucx_home/lib" "$@"
