#!/usr/bin/env bash
# The soak run (not in CI): N writers and R readers with temporal reads for M minutes on a MiniFffsCluster whose
# arena is smaller than the data, every byte checked; prints throughput, DataNode memory and the durable
# frontier's lag every 10 s.   dev-support/soak.sh [--writers N] [--readers R] [--minutes M] [--arena-mib A]
set -euo pipefail
cd "$(dirname "$0")/.."
exec bin/fffs bench soak "$@"
