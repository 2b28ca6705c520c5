#!/usr/bin/env bash
# The multi-host tests alone: a NameNode and four DataNodes, each in a network namespace of its own on a bridge,
# started with bin/fffs --daemon from the tarball, then faults (a link cut mid-write, kill -9, a NameNode restart,
# a DataNode's clock moved 2 s ahead); the temporal and random-write contract suites and a Spark job (fffs-spark's
# AsOfJob) against such a cluster; and three HA NameNodes whose leader's link is cut. They are fffs-dist's
# MultiHostClusterIT, MultiHostContractIT and HaPartitionIT, which `dev-support/test.sh` also runs;
# it needs root and `ip netns` (else it is skipped, saying why) and libfaketime for the clock part (installed here
# when missing). Extra arguments go to Maven. Namespaces, bridge and arenas are removed even when it fails.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v faketime >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "cluster-test.sh: installing faketime (libfaketime) for the clock-skew fault" >&2
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq faketime >&2
fi

# fffs-dist needs the tarball, built from every module it ships; no unit tests, only these ITs.
exec mvn -B -ntp verify -pl fffs-spark,fffs-dist -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test='MultiHostClusterIT,MultiHostContractIT,HaPartitionIT' -Djacoco.skip=true "$@"
