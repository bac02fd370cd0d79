#!/bin/sh
# Output paths take placeholders (docs/parameters.md#output-paths): two
# processes started with one GST_TRACERS write two summaries (%p), named
# after their pipeline (%n); an unknown placeholder gets one warning
# naming it and the valid ones, and the path is used as written.
. "$(dirname "$0")/e2e-lib.sh"
skip_unless_wired

export GST_TRACERS="gpuprof(stats=$dir/%p-%n.json,report=$dir/%p-%n.txt,checkpoint=0)"
gst-launch-1.0 -q fakesrc num-buffers=500 ! identity ! fakesink > "$dir/a.log" 2>&1 &
a=$!
gst-launch-1.0 -q fakesrc num-buffers=500 ! queue ! fakesink > "$dir/b.log" 2>&1 &
b=$!
wait $a || bad "first process failed: $(cat "$dir/a.log")"
wait $b || bad "second process failed: $(cat "$dir/b.log")"
for pid in $a $b; do
  f="$dir/$pid-pipeline0.json"
  json_is "$f" '.schema == "gpuprof-summary" and .run.pipeline == "pipeline0"' &&
    ok "process $pid: its own summary $f" || bad "process $pid: no summary $f: $(ls "$dir")"
  grep -q "^limit: " "$dir/$pid-pipeline0.txt" && ok "process $pid: its own report" ||
    bad "process $pid: no report"
done
json_is "$dir/$a-pipeline0.json" '[.elements[].path] | index("pipeline0/identity0") != null' &&
  json_is "$dir/$b-pipeline0.json" '[.elements[].path] | index("pipeline0/queue0") != null' &&
  ok "each summary is its own process' pipeline" || bad "summaries mixed up"

GST_TRACERS="gpuprof(stats=$dir/%q-run.json,report=off)" \
  gst-launch-1.0 -q fakesrc num-buffers=10 ! fakesink > "$dir/unknown.log" 2>&1
n=$(grep -c "unknown placeholder '%q' in stats=$dir/%q-run.json, kept as written (valid: %p process id, %n pipeline name" "$dir/unknown.log")
[ "$n" -eq 1 ] && ok "unknown placeholder: one warning naming it and the valid ones" ||
  { bad "unknown placeholder: $n warnings:"; cat "$dir/unknown.log"; }
[ -f "$dir/%q-run.json" ] && ok "unknown placeholder: the path used as written" ||
  bad "unknown placeholder: no $dir/%q-run.json"
exit $fail
