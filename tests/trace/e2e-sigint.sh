#!/bin/sh
# Ctrl-C of gst-launch-1.0 -e: EOS goes through, the trace is complete
# (valid JSON, every residency ended) and holds the summary.
. "$(dirname "$0")/e2e-lib.sh"
skip_unless_wired

GST_TRACERS="gpuprof(trace=$dir/run.json,report=$dir/report.txt)" \
  gst-launch-1.0 -e fakesrc sizetype=fixed sizemax=1024 \
    ! identity name=a sleep-time=500 ! queue name=q ! identity name=b \
    ! fakesink name=sink > "$dir/launch.log" 2>&1 &
pid=$!
# Ctrl-C once buffers flow through the whole pipeline (a chain call of the
# sink is in the trace: an event named by it; its state-change marks, which
# name it as an argument, come before any buffer), however long a loaded
# machine takes to get there
wait_for_text "$dir/run.json" '"name":"pipeline0/sink"' $pid
kill -INT $pid
wait $pid
status=$?
[ $status -eq 0 ] || bad "gst-launch-1.0 -e exited $status"

check_trace --summary --counts-from-summary "$dir/run.json"
tail -c 3 "$dir/run.json" | grep -q ']' && ok "closing bracket" || bad "no closing bracket"
compare_reports "$dir/report.txt" "$dir/run.json"
exit $fail
