#!/bin/sh
# gst-gpuprof's exit codes (0 ok, 1 usage, 2 bad input) and error messages
# that name the file and, for syntax errors, the line and column.
set -u
tool=${1:?usage: tools-errors.sh GST_GPUPROF DATA_DIR}
data=${2:?}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fail=0

run() { # run WANT_STATUS WANT_STDERR_SUBSTRING ARGS...
  want=$1 msg=$2; shift 2
  "$tool" "$@" > "$dir/out" 2> "$dir/err"
  got=$?
  if [ $got -ne "$want" ]; then
    echo "FAIL gst-gpuprof $*: exit $got, expected $want"; cat "$dir/err"; fail=1
  elif [ -n "$msg" ] && ! grep -qF -- "$msg" "$dir/err"; then
    echo "FAIL gst-gpuprof $*: stderr lacks '$msg':"; cat "$dir/err"; fail=1
  else
    echo "ok   gst-gpuprof $* -> $got"
  fi
}

run 0 "" --help
grep -q "^Usage: gst-gpuprof" "$dir/out" || { echo "FAIL --help text"; fail=1; }
run 0 "" report --help
run 1 "missing command" 
run 1 "unknown command 'frobnicate'" frobnicate
run 1 "report takes one FILE" report
run 1 "report takes one FILE" report a b
run 1 "diff takes two files" diff "$data/before.json"
run 2 "$dir/missing.json: No such file or directory" report "$dir/missing.json"
run 2 "$data/malformed.json:3:21:" report "$data/malformed.json"
run 2 "not a gpuprof summary" report "$data/not-summary.json"
run 2 "$data/malformed.json:3:21:" diff "$data/before.json" "$data/malformed.json"
: > "$dir/empty.json"
run 2 "$dir/empty.json:1:1: empty file" report "$dir/empty.json"
echo "hello" > "$dir/text.json"
run 2 "$dir/text.json:1:1: not a gpuprof summary or trace" report "$dir/text.json"

# a trace with a broken line in the middle: named by line
printf '[\n{"ph":"M","name":"process_name","pid":1,"tid":0,"ts":0,"args":{"name":"p"}},\n{"ph":"X", oops,\n{"ph":"X","cat":"chain","name":"a","pid":1,"tid":1,"ts":1.000,"dur":1.000,"args":{"self_ns":1000}}\n]\n' > "$dir/bad-trace.json"
run 2 "$dir/bad-trace.json:3:1: malformed trace event" report "$dir/bad-trace.json"
# a summary event whose JSON is broken: line and column
printf '[\n{"ph":"i","name":"gpuprof summary","pid":1,"tid":0,"ts":1.000,"s":"g","args":{"summary":{"schema":}}}\n]\n' > "$dir/bad-summary.json"
run 2 "$dir/bad-summary.json:2:" report "$dir/bad-summary.json"
# the last line cut mid-event by a kill is not an error
printf '[\n{"ph":"M","name":"thread_name","pid":1,"tid":1,"ts":0,"args":{"name":"t1"}},\n{"ph":"X","cat":"chain","name":"a","pid":1,"tid":1,"ts":1.000,"dur":2.000,"args":{"self_ns":1500}},\n{"ph":"X","cat":"ch' > "$dir/cut.json"
run 0 "no run summary in the trace" report "$dir/cut.json"
grep -q "^  a " "$dir/out" || { echo "FAIL cut trace: no row for element a"; cat "$dir/out"; fail=1; }
exit $fail
