#!/bin/sh
# An unwritable trace path or a full disk: one clear error naming the file
# and the reason, and the pipeline runs to the end as without a trace.
. "$(dirname "$0")/e2e-lib.sh"
skip_unless_wired

one_error() { # one_error NAME PATH REASON
  # GST_DEBUG=0: the debug log's copy of the error is not the one counted
  # (GStreamer built from git shows ERROR lines by default)
  GST_DEBUG=0 GST_TRACERS="gpuprof(trace=$2,report=$dir/report-$1.txt)" \
    gst-launch-1.0 -q fakesrc num-buffers=2000 ! identity name=a ! fakesink \
    > "$dir/$1.log" 2>&1
  status=$?
  [ $status -eq 0 ] && ok "$1: pipeline ran to the end" ||
    bad "$1: gst-launch-1.0 exited $status"
  n=$(grep -c "$2" "$dir/$1.log")
  [ "$n" -eq 1 ] && ok "$1: one error naming $2" ||
    { bad "$1: $n messages naming $2:"; cat "$dir/$1.log"; }
  grep -q "$3" "$dir/$1.log" && ok "$1: says '$3'" || bad "$1: no '$3'"
  grep -q "^limit: " "$dir/report-$1.txt" && ok "$1: report still made" ||
    bad "$1: no report"
}
one_error unwritable /nonexistent-gpuprof-dir/run.json "No such file or directory"
one_error full-disk /dev/full "No space left on device"
exit $fail
