#!/usr/bin/env bash
# Builds punktfunk-fuzz with libFuzzer and runs every target for a bounded number of
# executions, so CI proves each still builds, runs and finds nothing.
#   Tests/tools/fuzz.sh                 all targets, $PF_FUZZ_RUNS executions each (default 100000)
#   Tests/tools/fuzz.sh media-receiver  one target
# Crashes are written to .build-fuzz/artifacts/ and fail the script.
set -euo pipefail
cd "$(dirname "$0")/../.."

runs="${PF_FUZZ_RUNS:-100000}"
scratch=.build-fuzz   # corpora, logs, artifacts
# Built in the package's own .build with the release flags of the test command (Tests/tools/test.sh)
# plus the sanitizer's: the C targets (BoringSSL above all) are compiled once for both, and only
# the Swift modules differ — the next plain release build compiles those again, uninstrumented.
release=(swift build -c release --static-swift-stdlib)
"${release[@]}" --product punktfunk-fuzz -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING -Xswiftc -use-ld=lld >&2
bin="$("${release[@]}" --show-bin-path)/punktfunk-fuzz"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(control-stream host-datagram client-datagram media-receiver fec-round-trip hevc-annexb audio-decode dns cec feedback recovery edid eld netlink)
fi
mkdir -p "$scratch/artifacts"
# One target: its corpus, its seeds, its log; prints one line, returns non-zero on a finding.
fuzz_one() {
  local t=$1 corpus="$scratch/corpus/$1" seeds="Tests/Fixtures/fuzz-seeds/$1" start execs
  local extra=()
  mkdir -p "$corpus"
  [ -d "$seeds" ] && extra+=("$seeds")
  start=$(date +%s)
  if ! PF_FUZZ_TARGET="$t" "$bin" -runs="$runs" -seed=1 -max_len=4096 -max_total_time=300 \
        -artifact_prefix="$scratch/artifacts/$t-" -print_final_stats=1 "$corpus" "${extra[@]}" \
        > "$scratch/$t.log" 2>&1; then
    tail -n 60 "$scratch/$t.log" >&2
    echo "fuzz: $t FAILED (log: $scratch/$t.log)" >&2
    return 1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$scratch/$t.log" | grep -o '[0-9]*$' || echo "?")
  echo "fuzz: $t ok — $execs executions in $(( $(date +%s) - start )) s"
}
# The targets run side by side, one per core (each is one single-threaded process with its own
# corpus directory and log); any finding fails the script once all have ended.
slots=$(nproc)
failed=0
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$slots" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fuzz_one "$t" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit $failed
