#!/bin/bash
# tests/gpu/kernel-counts.sh (run by check-h100.sh on the GPU host) on canned
# files: an ncu CSV with "==PROF==" lines, a kernel name with commas and two
# metric rows for one launch; gpuprof kernel CSVs (CRLF, quoted cells), one
# matching, one with the EOS-drain mischarge of issue 11 and a wrong count.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D="$ROOT/tests/gpu/data"
S="$ROOT/tests/gpu/kernel-counts.sh"
L='/(nvh264dec|cudaconvert|cudascale|cudaupload|cudadownload)[0-9]*$'
fail () { echo "FAIL: $*" >&2; exit 1; }

# compare GPUPROF_CSV WANT_STATUS LINE...: the comparison of the ncu file
# with GPUPROF_CSV exits WANT_STATUS (0 pass, 1 fail) and prints each LINE
compare () {
  local csv=$1 want_status=$2 out status want
  shift 2
  out=$(bash "$S" "$D/ncu-decode.csv" "$D/$csv" "$L")
  status=$?
  [ "$status" = "$want_status" ] || fail "$csv: exit status $status: $out"
  for want in "$@"; do
    grep -qxF "$want" <<< "$out" || fail "missing '$want' in: $out"
  done
}

compare gpuprof-decode-good.csv 0 \
    "PASS  ConvertNV12BLtoNV12: ncu 2, gpuprof 2" \
    "PASS  KernelMain: ncu 2, gpuprof 2" \
    "PASS  void scale<int, float>(float*): ncu 1, gpuprof 1" \
    "PASS  kernel names 3, failures 0"
compare gpuprof-decode-bad.csv 1 \
    "FAIL  ConvertNV12BLtoNV12 charged to pipeline0/qtdemux0 (1), which does not launch kernels" \
    "PASS  ConvertNV12BLtoNV12: ncu 2, gpuprof 2" \
    "FAIL  void scale<int, float>(float*): ncu 1, gpuprof 2" \
    "FAIL  kernel names 3, failures 2"
echo ok
