#!/usr/bin/env bash
# Does what a new user does: `git clone` the repository into a temporary
# folder and runs the README's two commands there (bash tools/run-example.sh,
# then bash tools/run-tests.sh), then prints a short summary: the time of
# each command, the suite's count line and pass/fail. Logs are kept.
#
#   tools/fresh-check.sh                    # the committed HEAD of this checkout
#   tools/fresh-check.sh PATH-OR-URL [REV]  # another repository, a branch/rev
#   options (before the repository):
#     --logs DIR      keep the logs there (default: a new /tmp/gpuprof-fresh-*)
#     --in DIR        clone under DIR (default /tmp; the tests use the clip at
#                     ../shared/media beside the clone when there is one)
#     --test-runs N   run tools/run-tests.sh N times in the same clone (1)
#     --burners K     K CPU burners for the whole check, killed at the end (0)
#     --keep          keep the clone (default: removed, the logs stay)
# Exit status 0 when every command passed.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
logs="" parent=${TMPDIR:-/tmp} runs=1 burners=0 keep=0

usage() {
  sed -n '2,18s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
  exit "$1"
}
is_count() { [[ $1 =~ ^[0-9]+$ ]]; }

while [ $# -gt 0 ]; do
  case $1 in
    --logs) [ -n "${2:-}" ] || usage 2; logs=$2; shift 2 ;;
    --in) [ -d "${2:-}" ] || { echo "fresh-check: --in needs a folder"; exit 2; }
      parent=$2; shift 2 ;;
    --test-runs) is_count "${2:-}" && [ "$2" -gt 0 ] || usage 2; runs=$2; shift 2 ;;
    --burners) is_count "${2:-}" || usage 2; burners=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) usage 0 ;;
    -*) echo "fresh-check: unknown option $1"; usage 2 ;;
    *) break ;;
  esac
done
repo=${1:-$here}
rev=${2:-}
if [ -z "$rev" ] && [ "$repo" = "$here" ]; then
  rev=$(git -C "$here" rev-parse HEAD) || exit 2
  git -C "$here" diff --quiet HEAD 2>/dev/null ||
    echo "fresh-check: $here has uncommitted changes: they are not checked"
fi

clone=$(mktemp -d "$parent/gpuprof-fresh-XXXXXX") || exit 2
[ -n "$logs" ] || logs=$(mktemp -d /tmp/gpuprof-fresh-logs-XXXXXX)
mkdir -p "$logs" || exit 2
logs=$(cd "$logs" && pwd)
summary="$logs/summary.txt"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  pids=()
  if [ "$keep" = 0 ]; then rm -rf "$clone"; fi
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

status=0
# step NAME LOG COMMAND...: runs it in the clone, says its time and status
step() {
  local name=$1 log=$2 start st
  shift 2
  start=$(date +%s)
  (cd "$clone" && "$@") > "$log" 2>&1
  st=$?
  last_time=$(( $(date +%s) - start ))
  say "$(printf '%-28s %s  %4d s  %s' "$name" \
    "$([ "$st" -eq 0 ] && echo ok || echo "FAIL (exit $st)")" "$last_time" "$log")"
  [ "$st" -eq 0 ] || status=1
  return "$st"
}

say "fresh-check: $repo${rev:+ at $rev}, $(nproc) CPUs, $burners burners, $(date '+%F %T')"
if ! step "git clone" "$logs/clone.log" git clone -q "$repo" "$clone"; then
  cat "$logs/clone.log"; exit 1
fi
if [ -n "$rev" ] && ! step "git checkout" "$logs/checkout.log" \
    git -c advice.detachedHead=false checkout -q "$rev"; then
  cat "$logs/checkout.log"; exit 1
fi
say "clone: $clone ($(git -C "$clone" log -1 --format='%h %s' | cut -c1-60))"
for ((i = 0; i < burners; i++)); do
  sh -c 'while :; do :; done' &
  pids+=($!)
done

t0=$(date +%s)
step "bash tools/run-example.sh" "$logs/run-example.log" bash tools/run-example.sh
grep -m1 '^limit:' "$logs/run-example.log" | sed 's/^/  /' | tee -a "$summary"
for ((run = 1; run <= runs; run++)); do
  log="$logs/run-tests-$run.log"
  label="bash tools/run-tests.sh"
  [ "$runs" -gt 1 ] && label="$label ($run/$runs)"
  if ! step "$label" "$log" bash tools/run-tests.sh; then
    # meson's full logs of this run's stages, before the next run (or the
    # clean-up) replaces them
    mkdir -p "$logs/run-tests-$run"
    cp "$clone"/build*/test-output*.testlog.txt "$logs/run-tests-$run/" \
      2>/dev/null
    say "  meson's full logs: $logs/run-tests-$run/"
  fi
  # the per-build lines and the total: "N passed, N failed, N skipped"
  grep -E '^(as built|ASan\+UBSan).*(passed|failed)|^[0-9]+ passed, [0-9]+ failed' "$log" \
    | sed 's/^/  /' | tee -a "$summary"
  # each build's "Summary of Failures:" (meson prints a failure twice)
  awk '/^Summary of Failures:/ { f = 1; next } f && !NF { f = 0 } f' "$log" \
    | sed 's/^/  /' | tee -a "$summary"
done
say "total $(( $(date +%s) - t0 )) s: $([ "$status" -eq 0 ] && echo PASS || echo FAIL); logs in $logs"
[ "$keep" = 1 ] && say "clone kept: $clone"
exit "$status"
