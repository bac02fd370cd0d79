#!/bin/sh
# SIGKILL in the middle of a run: the trace loads with the missing-bracket
# rule, its events are consistent, and `gst-gpuprof report` rebuilds what it
# can from them and says the summary is missing.
. "$(dirname "$0")/e2e-lib.sh"
skip_unless_wired

GST_TRACERS="gpuprof(trace=$dir/run.json)" \
  gst-launch-1.0 fakesrc sizetype=fixed sizemax=1024 \
    ! identity name=a sleep-time=500 ! queue name=q ! identity name=b \
    ! fakesink name=sink > "$dir/launch.log" 2>&1 &
pid=$!
# killed once the trace holds events of every element, mid-run (a chain
# call of the sink: its state-change marks come before any buffer)
wait_for_text "$dir/run.json" '"name":"pipeline0/sink"' $pid
kill -KILL $pid
wait $pid 2>/dev/null

check_trace --truncated "$dir/run.json"
if "$tool" report "$dir/run.json" > "$dir/report.txt" 2> "$dir/report.err"; then
  ok "gst-gpuprof report on the killed trace"
  grep -q "no run summary" "$dir/report.err" && ok "says the summary is missing" ||
    bad "no note on the missing summary: $(cat "$dir/report.err")"
  grep -q "pipeline0/a" "$dir/report.txt" && ok "element rows rebuilt" ||
    bad "no element rows: $(cat "$dir/report.txt")"
else
  bad "gst-gpuprof report failed: $(cat "$dir/report.err")"
fi
exit $fail
