#!/bin/sh
# A run to EOS: the trace is complete and consistent, its counts match the
# buffers seen, and `gst-gpuprof report` on it prints the live report.
. "$(dirname "$0")/e2e-lib.sh"
skip_unless_wired

GST_TRACERS="gpuprof(trace=$dir/run.json,report=$dir/report.txt)" \
  gst-launch-1.0 -q fakesrc num-buffers=100 sizetype=fixed sizemax=4096 \
    ! identity name=a ! queue name=q ! identity name=b ! fakesink name=sink \
  > "$dir/launch.log" 2>&1 || bad "gst-launch-1.0 failed: $(cat "$dir/launch.log")"

check_trace --summary --counts-from-summary \
  --chain pipeline0/a=100 --chain pipeline0/b=100 --chain pipeline0/sink=100 \
  --async pipeline0/q=100 "$dir/run.json"
jq -e 'any(.[]; .ph == "i" and .name == "EOS")' "$dir/run.json" >/dev/null &&
  ok "EOS mark" || bad "no EOS mark"
jq -e '[.[] | select(.ph == "s")] | length == 100' "$dir/run.json" >/dev/null &&
  ok "100 flows across the queue" || bad "flows across q: not 100"
jq -e '[.[] | select(.ph == "C" and .name == "pipeline0/q level")] | length >= 200' \
  "$dir/run.json" >/dev/null && ok "queue level counters" || bad "queue level counters"
jq -e '[.[] | select(.ph == "X" and .name == "pipeline0/a")][0].args
       | has("pad") and has("seq") and has("pts") and has("size") and has("self_ns")' \
  "$dir/run.json" >/dev/null && ok "chain event args" || bad "chain event args"
compare_reports "$dir/report.txt" "$dir/run.json"
exit $fail
