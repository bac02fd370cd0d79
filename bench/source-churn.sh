#!/bin/sh
# source-churn.sh: what cameras that come and go cost a service that keeps
# playing (issue 19, item 8). tests/live/churn.py adds and removes N live
# camera bins one after the other on a funnel (2 stay, the application
# holds the last 3 removed), untraced and under gpuprof with metrics=,
# interval=1 and a report; it prints, before the first camera and after
# 200 and N: the resident memory, the endpoint's series, the records the
# tracer keeps (elements/pads/pipelines) and the time taken. Then one
# table for docs/benchmarks.md: memory per camera between 200 and N (flat:
# a few KiB at most), series and records the same at 200 and at N.
#
#   bench/source-churn.sh [BUILD_DIR] [N]      (defaults: build, 1000)
set -eu
build=${1:-build}
n=${2:-1000}
top=$(cd "$(dirname "$0")/.." && pwd)
tdir=$(mktemp -d)
trap 'rm -rf "$tdir"' EXIT
export GST_PLUGIN_PATH="$build/tracers${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GST_REGISTRY_1_0="$tdir/registry.bin"
export PYTHONPATH="$top/tests/live${PYTHONPATH:+:$PYTHONPATH}"
churn="$top/tests/live/churn.py"
# a python with PyGObject (a pyenv's may lack it)
py=python3
$py -c 'import gi' 2>/dev/null || py=/usr/bin/python3

run () {
  # $1: label, then churn.py's arguments
  label=$1
  shift
  echo "== $label" >&2
  $py "$churn" --cycles "$n" --at "0,200,$n" --dir "$tdir" "$@" \
    > "$tdir/out.txt" || { cat "$tdir/out.txt" >&2; exit 1; }
  grep '^cycle=' "$tdir/out.txt" >&2
  awk -v label="$label" -v n="$n" '
    /^cycle=/ {
      for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      c = v["cycle"]; rss[c] = v["rss_kb"]; ser[c] = v["series"]
      rec[c] = v["records"]; t[c] = v["elapsed_s"]
    }
    /^report_lines=/ { split($0, kv, "="); lines = kv[2] }
    END {
      per = (rss[n] - rss[200]) / (n - 200)
      printf "| %s | %.1f MB | %.1f MB | %.1f MB | %+.2f KiB | %s / %s / %s | %s / %s | %s | %.0f s |\n",
        label, rss[0] / 1024, rss[200] / 1024, rss[n] / 1024, per,
        label == "none" ? "-" : ser[0], label == "none" ? "-" : ser[200],
        label == "none" ? "-" : ser[n], rec[200], rec[n],
        lines == "" ? "-" : lines, t[n]
    }' "$tdir/out.txt" >> "$tdir/table.txt"
}

run none --untraced
run "gpuprof(metrics, interval=1)"
echo
echo "| tracer | RSS before | after 200 | after $n | per camera 200->$n | series 0 / 200 / $n | records 200 / $n | report lines | time |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
cat "$tdir/table.txt"
