#!/usr/bin/env bash
# Installs UCX 1.18.1 for the RDMA transport (fffs-rdma-client and -server, docs/rdma.md) if it is missing, then prints its home
# directory (libraries in <home>/lib). Used by dev-support/test.sh (tests) and bin/fffs (bench rdma).
#
# jucx 1.18.1 needs UCP API 1.18; Debian's libucx0 is 1.13.1 (it works, but warns on every context and lacks
# UCX_MM_ERROR_HANDLING). UCX 1.18.1 comes as the PyPI wheel libucx-cu12 (no CUDA needed); it is unpacked under
# ~/.cache/fffs (or $FFFS_UCX_HOME) and reaches only the JVMs given it through LD_LIBRARY_PATH. Nothing is
# installed system-wide. The wheel has no InfiniBand modules: tcp and shared memory only.
set -euo pipefail

ucx_home="${FFFS_UCX_HOME:-$HOME/.cache/fffs/ucx-1.18.1}"
if [ ! -e "$ucx_home/lib/libucp.so.0" ]; then
  echo "install-ucx.sh: installing UCX 1.18.1 (PyPI wheel libucx-cu12) into $ucx_home" >&2
  if ! python3 -m pip --version >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-pip >&2
  fi
  ucx_tmp="$(mktemp -d)"
  trap 'rm -rf "$ucx_tmp"' EXIT
  python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    libucx-cu12==1.18.1 -d "$ucx_tmp" >&2
  python3 -m zipfile -e "$ucx_tmp"/libucx_cu12-1.18.1-*.whl "$ucx_tmp/wheel" >&2
  mkdir -p "$ucx_home"
  rm -rf "$ucx_home/lib" "$ucx_home/bin"
  cp -R "$ucx_tmp/wheel/libucx/lib" "$ucx_tmp/wheel/libucx/bin" "$ucx_home/"
  find "$ucx_home" \( -name "*.a" -o -name "*.la" \) -delete
  chmod -R a+rX "$ucx_home" && chmod a+x "$ucx_home"/bin/*
fi
echo "$ucx_home"
