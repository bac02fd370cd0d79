#!/usr/bin/env bash
# The whole test suite N times in a row with K CPU burners beside it: a
# suite that passes here passes on a loaded machine. Prints each run's
# result, then which tests failed how often; exits non-zero on any failure.
#   tools/stress-tests.sh                      # 20 runs, 2 burners
#   tools/stress-tests.sh --runs 5 --burners 4
#   tools/stress-tests.sh --runs 10 --suite tracer   # other args: meson test
# Logs of every run: $GPUPROF_BUILD (default build/)/stress/run-N.log.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUPROF_BUILD:-$top/build}
runs=20
burners=2
meson_args=()

usage() {
  sed -n '2,8s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
  exit "$1"
}
is_count() { [[ $1 =~ ^[0-9]+$ ]]; }

while [ $# -gt 0 ]; do
  case $1 in
    --runs) is_count "${2:-}" || usage 2; runs=$2; shift 2 ;;
    --burners) is_count "${2:-}" || usage 2; burners=$2; shift 2 ;;
    -h|--help) usage 0 ;;
    *) meson_args+=("$1"); shift ;;
  esac
done

bash "$top/tools/dev-setup.sh" >/dev/null || { echo "set-up failed"; exit 1; }
logs="$build/stress"
rm -rf "$logs"; mkdir -p "$logs"

pids=()
stop_burners() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  pids=()
}
trap stop_burners EXIT
trap 'stop_burners; exit 130' INT TERM
for ((i = 0; i < burners; i++)); do
  sh -c 'while :; do :; done' &
  pids+=($!)
done

echo "stress: $runs runs of the suite, $burners CPU burners, $(nproc) CPUs"
declare -A failed_count=()
bad_runs=0
for ((run = 1; run <= runs; run++)); do
  log="$logs/run-$run.log"
  start=$(date +%s)
  meson test -C "$build" --print-errorlogs "${meson_args[@]}" > "$log" 2>&1
  status=$?
  # " 2/28 gpuprof:tracer / tracer-selftime   FAIL   2.23s   exit status 2"
  failed=$(sed -nE 's/^ *[0-9]+\/[0-9]+ +[^ ]+ \/ ([^ ]+) +(FAIL|TIMEOUT|ERROR) .*/\1/p' "$log" | sort -u)
  ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$log" | tail -1)
  # a run in which no test passed proves nothing: count it as failed
  if [ "$status" -ne 0 ] || [ -n "$failed" ] || [ "${ok:-0}" -eq 0 ]; then
    bad_runs=$((bad_runs + 1))
    [ -n "$failed" ] || failed="(meson-test-exit-$status,${ok:-0}-ok)"
    for t in $failed; do failed_count[$t]=$(( ${failed_count[$t]:-0} + 1 )); done
    echo "run $run/$runs: FAIL ($(( $(date +%s) - start )) s, ${ok:-0} ok): $(echo $failed) — $log"
  else
    echo "run $run/$runs: ok ($(( $(date +%s) - start )) s, ${ok:-0} ok)"
  fi
done
stop_burners

echo
echo "stress summary: $runs runs, $bad_runs with failures, $burners burners"
for t in "${!failed_count[@]}"; do
  echo "  $t: failed ${failed_count[$t]} of $runs runs"
done | sort
[ "$bad_runs" -eq 0 ]
