#!/usr/bin/env bash
# Coverage-guided fuzzing (Jazzer) of the parsers that take untrusted input, one target after another:
#   dev-support/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 300 s each, every target)
# A target is MODULE:CLASS#METHOD, a @FuzzTest. Each runs in Jazzer's own driver on the module's test class path,
# its corpus in MODULE/target/fuzz-corpus. An input that makes a target fail is written to the test's resources
# (src/test/resources/<package>/<Class>Inputs/<method>/crash-…), where every later build replays it as a regression
# input; the script then exits 1. Run after the modules are built (dev-support/test.sh runs it after `mvn install`).
set -uo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-300}"; [ $# -gt 0 ] && shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(
    "fffs-protocol:io.fffs.protocol.frame.FrameDecoderFuzzTest#anyByteStreamGivesWellFormedFramesOrAClosedConnection"
    "fffs-common:io.fffs.common.time.TemporalPathFuzzTest#anyPathParsesAndRoundTripsOrIsMalformedTime"
    "fffs-namenode:io.fffs.namenode.edits.EditLogReaderFuzzTest#anySegmentGivesGoodRecordsInOrderOrCorrupt"
    "fffs-datanode:io.fffs.datanode.store.persist.SegmentScannerFuzzTest#anySegmentGivesValidEntriesOrCorrupt"
    "fffs-namenode:io.fffs.namenode.rpc.IpcRequestFuzzTest#anyRequestIsAnsweredOrRefusedWithATypedErrorAndTheNameNodeStaysUp"
    "fffs-http:io.fffs.http.HttpRequestFuzzTest#anyRequestParsesIntoAPathInsideTheFileSystemOrATypedRefusal"
    "fffs-minicluster:io.fffs.minicluster.faults.DataTransferFuzzTest#anyRequestIsAnsweredOrRefusedWithATypedErrorAndTheDataNodeStaysUp"
  )
fi

failed=0
for target in "${targets[@]}"; do
  module="${target%%:*}"; test="${target#*:}"; class="${test%%#*}"; method="${test#*#}"
  cp_file="$module/target/fuzz-classpath.txt"
  if [ ! -s "$cp_file" ]; then
    mvn -B -q -ntp -pl "$module" dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$PWD/$cp_file" \
      >/dev/null || { echo "fuzz.sh: cannot resolve the class path of $module" >&2; exit 2; }
  fi
  inputs="$module/src/test/resources/$(dirname "${class//.//}")/$(basename "${class//.//}")Inputs/$method"
  corpus="$module/target/fuzz-corpus/$method"
  mkdir -p "$inputs" "$corpus"
  echo "fuzz.sh: $test for ${seconds}s" >&2
  if ! java -Xmx1g -cp "$module/target/test-classes:$module/target/classes:$(cat "$cp_file")" \
      com.code_intelligence.jazzer.Jazzer --target_class="$class" --target_method="$method" \
      --instrumentation_includes='io.fffs.**' \
      -max_total_time="$seconds" -rss_limit_mb=3072 -artifact_prefix="$inputs/" "$corpus" "$inputs" \
      > "$module/target/fuzz-$method.log" 2>&1; then
    echo "fuzz.sh: $test FOUND A FAILURE (kept in $inputs; log $module/target/fuzz-$method.log):" >&2
    grep -m 3 -E "== Java Exception|Exception:|Error:" "$module/target/fuzz-$method.log" >&2
    failed=1
  else
    echo "fuzz.sh: $test: $(grep -E '^Done [0-9]+ runs' "$module/target/fuzz-$method.log" | tail -1)" >&2
  fi
done
exit $failed
