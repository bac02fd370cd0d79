#!/bin/sh
# Instructions per GPU op of our own CUPTI handling, counted by callgrind on
# the fake libcupti (no GPU needed; repeatable, unlike times):
#   bench/cupti-fake-callgrind.sh BUILD_DIR [callback|activity] [N]
# Runs bench/cupti-fake-cost under callgrind with N and 2N launches and
# divides the difference by N, so start-up and teardown cancel out. Prints:
#   launch  the subscriber callback at API entry and exit (callback path) or
#           the external id push/pop (activity path), on the launching thread
#   hooks   gpuprof_gpu_chain_enter/exit around the chain call (the tracer's
#           hot path, there with cupti=off too)
#   record  buffer completion, attribution, statistics, settle (the collector
#           thread), the fake's record walk taken out
set -e
build=${1:?usage: $0 BUILD_DIR [callback|activity] [N]}
path=${2:-callback}
n=${3:-20000}
fake=$build/tests/gpu/libfakecupti.so
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

for k in 1 2; do
  valgrind --tool=callgrind --callgrind-out-file="$dir/cg.$k" \
    "$build/bench/cupti-fake-cost" "$fake" $((n * k)) "$path" >/dev/null 2>&1
  callgrind_annotate --inclusive=yes --threshold=100 "$dir/cg.$k" \
    >"$dir/an.$k" 2>/dev/null
done

# inclusive Ir of function $2 in annotation $1 (0 when absent)
ir () {
  awk -v f=":$2 " '{ gsub(",", "", $1) } index($0, f) { print $1; found=1; exit }
    END { if (!found) print 0 }' "$1"
}
per_op () {
  a=0; b=0
  for fn in "$@"; do
    sign=1
    case $fn in -*) sign=-1; fn=${fn#-} ;; esac
    a=$((a + sign * $(ir "$dir/an.1" "$fn")))
    b=$((b + sign * $(ir "$dir/an.2" "$fn")))
  done
  echo $(((b - a) / n))
}

if [ "$path" = callback ]; then
  launch=$(per_op subscriber_callback)
else
  launch=$(per_op backend_push backend_pop)
fi
hooks=$(per_op _gpuprof_gpu_enter _gpuprof_gpu_exit -backend_push -backend_pop)
record=$(per_op buffer_completed -cuptiActivityGetNextRecord \
  gpuprof_cupti_flush -cuptiActivityFlushAll)
echo "$path: Ir per GPU op: launch $launch, hooks $hooks, record $record," \
  "ours $((launch + hooks + record))"
