# Sourced by the e2e-*.sh tests: real pipelines under
# GST_TRACERS="gpuprof(trace=...)". Arguments: BUILD_ROOT GST_GPUPROF.
# GST_PLUGIN_PATH must reach the tracer (meson sets it). The tests skip
# (exit 77) while the tracer does not write trace= files.
set -u
build=${1:?usage: $0 BUILD_ROOT GST_GPUPROF}
tool=${2:?usage: $0 BUILD_ROOT GST_GPUPROF}
here=$(cd "$(dirname "$0")" && pwd)
check="$here/check-trace.sh"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fail=0

say() { echo "$*"; }
ok() { say "ok   $*"; }
bad() { say "FAIL $*"; fail=1; }

# json_is FILE EXPR: FILE ("-": stdin) holds one JSON value for which EXPR
# is true (jq 1.6's -e alone passes an empty file)
json_is() {
  jq -es "length == 1 and (.[0] | $2)" "$1" > /dev/null 2>&1
}

# run with the checker; report its lines
check_trace() {
  if "$check" "$@"; then ok "checker: $*"; else bad "checker: $*"; fi
}

# exit 77 unless GST_TRACERS=gpuprof(trace=...) writes a trace
skip_unless_wired() {
  GST_TRACERS="gpuprof(trace=$dir/probe.json,report=off)" \
    gst-launch-1.0 -q fakesrc num-buffers=1 ! fakesink > "$dir/probe.log" 2>&1
  if [ ! -s "$dir/probe.json" ]; then
    say "SKIP: the gpuprof tracer does not write trace= files yet"
    sed 's/^/  /' "$dir/probe.log" | head -5
    exit 77
  fi
  rm -f "$dir/probe.json"
}

# wait_for_text FILE TEXT PID: wait until the running process PID has
# written TEXT to FILE (a trace being written), never for a fixed time; gives
# up when PID ends or after 120 s (a hang guard, not a timing bound)
wait_for_text() {
  i=0
  while ! grep -q "$2" "$1" 2>/dev/null; do
    kill -0 "$3" 2>/dev/null || { bad "$3 ended before writing '$2' to $1"; return 1; }
    i=$((i + 1))
    [ $i -lt 1200 ] || { bad "no '$2' in $1 after 120 s"; return 1; }
    sleep 0.1
  done
}

# the live report (report=FILE) vs `gst-gpuprof report TRACE`: the tool
# prints exactly gpuprof_report_format(); the live report may add lines
# (trace size, ...) around it
compare_reports() { # compare_reports LIVE_REPORT TRACE
  if [ ! -s "$1" ]; then
    bad "no live report in $1"; return
  fi
  if ! "$tool" report "$2" > "$dir/offline.txt" 2> "$dir/offline.err"; then
    bad "gst-gpuprof report $2 failed: $(cat "$dir/offline.err")"; return
  fi
  if cmp -s "$1" "$dir/offline.txt"; then
    ok "gst-gpuprof report prints the live report exactly"
  # else every line of the offline report must be in the live one, in order
  elif awk 'NR==FNR { want[n++] = $0; next } i < n && $0 == want[i] { i++ }
            END { exit !(i == n) }' "$dir/offline.txt" "$1"; then
    ok "gst-gpuprof report prints the live report (live adds lines)"
  else
    bad "gst-gpuprof report differs from the live report:"
    diff "$1" "$dir/offline.txt" | head -20
  fi
}
