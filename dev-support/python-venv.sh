#!/usr/bin/env bash
# Creates (or brings up to date) the Python virtual environment the WebHDFS client tests run in, then prints its
# directory (the interpreter is <dir>/bin/python). The packages and their versions are dev-support/python-requirements.txt;
# the environment lives under ~/.cache/fffs (or $FFFS_VENV) and is rebuilt only when that file changes.
# Used by dev-support/test.sh; fffs-http's tests find it through -Dfffs.python.
set -euo pipefail
cd "$(dirname "$0")"

venv="${FFFS_VENV:-$HOME/.cache/fffs/venv}"
requirements="$PWD/python-requirements.txt"
stamp="$venv/.fffs-requirements"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && cmp -s "$requirements" "$stamp"; then
  echo "$venv"
  exit 0
fi

if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv python3-pip >&2
fi
echo "python-venv.sh: installing $(grep -c '==' "$requirements") packages into $venv" >&2
rm -rf "$venv"
python3 -m venv "$venv" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --prefer-binary -r "$requirements" >&2
cp "$requirements" "$stamp"
echo "$venv"
