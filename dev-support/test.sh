#!/usr/bin/env bash
# The one test command (README "Quick start", .ci/run): installs what a fresh machine lacks, then builds and runs
# every test of every module with `mvn install` (verify, then install: the lifecycle bin/fffs uses to build on first
# use, so a module that cannot be installed fails here), then fuzzes each parser of untrusted input briefly and runs
# the ssh and compose deployment tests. Extra arguments go to Maven (e.g. -pl fffs-common -Dtest=Foo).
# Long soak, crash-loop and benchmark runs are separate commands (README) and are not run here.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
java_major() { javac -version 2>&1 | sed -E 's/^javac ([0-9]+).*/\1/'; }
if ! command -v javac >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ]; then
  missing+=(openjdk-17-jdk-headless)
fi
command -v mvn >/dev/null 2>&1 || missing+=(maven)
# libfaketime: fffs-dist's MultiHostClusterIT runs one DataNode on a skewed clock.
command -v faketime >/dev/null 2>&1 || missing+=(faketime)
# PyYAML: dev-support/compose-test.sh reads the compose file.
python3 -c 'import yaml' 2>/dev/null || missing+=(python3-yaml)
if [ ${#missing[@]} -gt 0 ]; then
  echo "test.sh: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

# UCX 1.18.1 for the RDMA transport's tests, under ~/.cache/fffs; only the UCX tests' (fffs-rdma-client, fffs-minicluster) and fffs-bench's forked JVMs
# get it (the poms' fffs.ucx.lib).
ucx_home="$(bash dev-support/install-ucx.sh)"

# The Python clients the WebHDFS tests run (fsspec, hdfs, pandas, pyarrow; pinned), in a virtual environment under
# ~/.cache/fffs; only fffs-minicluster's PythonClientsTest uses it (the pom's fffs.python).
venv="$(bash dev-support/python-venv.sh)"

mvn -B -ntp install -Dfffs.ucx.lib="$ucx_home/lib" -Dfffs.python="$venv/bin/python" "$@"

# A short coverage-guided fuzzing run of each parser of untrusted input (the build above already replayed every
# saved input); dev-support/fuzz.sh with more seconds for long runs. Skipped when Maven was given extra arguments.
if [ $# -eq 0 ]; then
  bash dev-support/fuzz.sh "${FFFS_FUZZ_SECONDS:-15}"
fi

# The deployment paths against the tarball just built, where root and network namespaces allow (about a minute
# each): `bin/fffs cluster start|status|stop` over real ssh to workers in namespaces, and the compose file's
# services run as written, each in a namespace of its own. Skipped when Maven was given extra arguments.
if [ $# -eq 0 ]; then
  if [ "$(id -u)" -eq 0 ] && ip netns list >/dev/null 2>&1; then
    bash dev-support/cluster-ssh-test.sh
    bash dev-support/compose-test.sh
  else
    echo "test.sh: cluster-ssh-test.sh and compose-test.sh skipped: they need root and ip netns" >&2
  fi
fi
