# Sourced by the script tests that run gst-launch-1.0 under the tracer
# (set build= first, the build root): a temporary folder $out removed at
# exit, check WHAT CONDITION counting failures, checks_done for the last
# line and the exit status, and launches with or without the project's
# NVTX recorder ($rec, a file only where it is built).
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fails=0
rec="$build/tests/nvtx-recorder/libgpuprof-nvtxrec.so"

check() { # what, condition
  if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}

checks_done() {
  echo "$fails failed"
  [ "$fails" -eq 0 ]
}

launch() { # tracers, then pipeline
  t=$1; shift
  GST_TRACERS="$t" gst-launch-1.0 -q "$@"
}

nvtx_launch() { # NVTX record file, tracers, then pipeline
  (
    export NVTX_INJECTION64_PATH="$rec" NVTXREC_OUT="$1"
    shift
    launch "$@"
  )
}
