#!/bin/sh
# Limits for huge runs: trace-max-mb stops the events below the cap and the
# reports say so; trace-elements keeps only the matching elements.
. "$(dirname "$0")/e2e-lib.sh"
skip_unless_wired

GST_TRACERS="gpuprof(trace=$dir/capped.json,trace-max-mb=1,report=$dir/report.txt)" \
  gst-launch-1.0 -q fakesrc num-buffers=100000 ! identity name=a \
    ! identity name=b ! fakesink name=sink > "$dir/cap.log" 2>&1 ||
  bad "gst-launch-1.0 failed: $(cat "$dir/cap.log")"
size=$(stat -c %s "$dir/capped.json")
[ "$size" -le $((1024 * 1024 + 64 * 1024)) ] && ok "capped trace is $size bytes" ||
  bad "capped trace is $size bytes, over 1 MiB"
check_trace --summary "$dir/capped.json"
jq -e 'any(.[]; .name == "gpuprof trace capped")' "$dir/capped.json" >/dev/null &&
  ok "cap mark in the trace" || bad "no cap mark in the trace"
grep -qi "capped" "$dir/report.txt" "$dir/cap.log" && ok "live report says capped" ||
  bad "the live report does not say the trace was capped"
"$tool" report "$dir/capped.json" > /dev/null 2> "$dir/tool.err"
grep -q "capped" "$dir/tool.err" && ok "gst-gpuprof report says capped" ||
  bad "gst-gpuprof report does not say capped: $(cat "$dir/tool.err")"

GST_TRACERS="gpuprof(trace=$dir/filtered.json,trace-elements=\"/a\$\",report=off)" \
  gst-launch-1.0 -q fakesrc num-buffers=100 ! identity name=a \
    ! identity name=b ! fakesink name=sink > "$dir/filter.log" 2>&1 ||
  bad "gst-launch-1.0 failed: $(cat "$dir/filter.log")"
check_trace --chain pipeline0/a=100 --chain pipeline0/b=0 \
  --chain pipeline0/sink=0 "$dir/filtered.json"
exit $fail
