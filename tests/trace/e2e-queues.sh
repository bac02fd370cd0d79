#!/bin/sh
# Queue residencies and buffer arrows in the trace, counted against pad
# probes on the queue in the same run (queue-truth): ids unique per
# multiqueue stream, every residency ended (also when the application exits
# with buffers inside), arrows only for buffers pushed out, lists counted as
# their buffers.
. "$(dirname "$0")/e2e-lib.sh"
skip_unless_wired
truth_tool="$build/tests/trace/queue-truth"
# Under ASan, memory errors are checked but not leaks: LeakSanitizer's
# stop-the-world crashed in 5 of 12 runs of the leaky case here ("Tracer
# caught signal 11", LSan's own thread, with GStreamer's pooled threads
# still alive at exit); the tracer's leaks are checked by every other test.
no_leak_check="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# run NAME MODE DESCRIPTION: trace in $dir/NAME.json, truth in $in and $out
run() {
  name=$1; shift
  GST_TRACERS="gpuprof(trace=$dir/$name.json,report=off)" \
    env "$no_leak_check" "$truth_tool" "$@" > "$dir/$name.truth" 2> "$dir/$name.log"
  status=$?
  [ $status -eq 0 ] || bad "$name: queue-truth exited $status: $(head -3 "$dir/$name.log")"
  in=$(sed -n 's/^in \([0-9]*\) out [0-9]*$/\1/p' "$dir/$name.truth")
  out=$(sed -n 's/^in [0-9]* out \([0-9]*\)$/\1/p' "$dir/$name.truth")
  say "$name: truth in ${in:-?} out ${out:-?}"
}

# count NAME JQ-FILTER: how many events of the trace pass the filter
count() {
  jq "[.[] | select($2)] | length" "$dir/$1.json"
}

# buffers in residency ends of q with RESULT (a list counts as its buffers)
ended() { # ended NAME RESULT
  jq --arg r "$2" '[.[] | select(.ph == "e" and .cat == "queue"
      and .name == "pipeline0/q" and .args.result == $r)
      | .args.buffers // 1] | add // 0' "$dir/$1.json"
}

expect() { # expect WHAT GOT WANT
  if [ "$2" = "$3" ]; then ok "$1: $2"; else bad "$1: $2, expected $3"; fi
}

# two streams of a multiqueue number their buffers each from 1
run mq eos "fakesrc num-buffers=5 ! q.sink_0 fakesrc num-buffers=7 ! q.sink_1
  multiqueue name=q q.src_0 ! fakesink q.src_1 ! fakesink"
check_trace --async "pipeline0/q=$in" --arrows "$out" "$dir/mq.json"
expect "mq: residencies pushed" "$(ended mq pushed)" "$out"

# a leaky queue drops most: arrows only for the buffers it pushed
run leaky eos "fakesrc num-buffers=50 ! queue name=q max-size-buffers=1
  leaky=downstream ! identity sleep-time=1000 ! fakesink"
check_trace --async "pipeline0/q=$in" --arrows "$out" "$dir/leaky.json"
expect "leaky: residencies pushed" "$(ended leaky pushed)" "$out"
expect "leaky: residencies dropped" "$(ended leaky dropped)" "$((in - out))"
[ "$((in - out))" -gt 0 ] || bad "leaky: nothing dropped, the test did not test"

# the application exits with buffers in the queue, never stopping its
# pipeline: they are left, their residencies end when the trace closes
run exit exit "fakesrc sizetype=fixed sizemax=64 ! queue name=q
  max-size-buffers=5 max-size-bytes=0 max-size-time=0 !
  identity sleep-time=20000 ! fakesink sync=false"
check_trace --async "pipeline0/q=$in" --arrows "$out" "$dir/exit.json"
expect "exit: residencies pushed" "$(ended exit pushed)" "$out"
expect "exit: residencies left" "$(ended exit left)" "$((in - out))"
[ "$((in - out))" -gt 0 ] || bad "exit: nothing inside at exit, the test did not test"

# lists (rtpvrawpay, small mtu) are one residency of n buffers
run lists eos "videotestsrc num-buffers=10 !
  video/x-raw,format=RGB,width=160,height=120 ! rtpvrawpay mtu=600 !
  queue name=q ! fakesink"
check_trace "$dir/lists.json"
expect "lists: buffers in pushed residencies" "$(ended lists pushed)" "$out"
entries=$(count lists '.ph == "b" and .name == "pipeline0/q"')
[ "$entries" -lt "$out" ] || bad "lists: $entries entries for $out buffers: no lists, the test did not test"
# the same trace without its summary (what a killed process leaves): the
# report rebuilt from the events counts the lists' buffers, and pairs ends
# written before their begins (the threads' events come per drain)
grep -v '"gpuprof summary"' "$dir/lists.json" > "$dir/lists-nosummary.json"
rebuilt=$("$tool" report "$dir/lists-nosummary.json" 2> /dev/null \
  | awk '/^Queues/ { q = 1 } q && $1 == "pipeline0/q" { print $2; exit }')
expect "lists: queue buffers rebuilt from the trace" "$rebuilt" "$out"
exit $fail
