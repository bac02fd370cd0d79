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

out=$(bash "$S" "$D/ncu-decode.csv" "$D/gpuprof-decode-good.csv" "$L") \
  || fail "good counts rejected: $out"
for want in "PASS  ConvertNV12BLtoNV12: ncu 2, gpuprof 2" \
    "PASS  KernelMain: ncu 2, gpuprof 2" \
    "PASS  void scale<int, float>(float*): ncu 1, gpuprof 1" \
    "PASS  kernel names 3, failures 0"; do
  grep -qxF "$want" <<< "$out" || fail "missing '$want' in: $out"
done

out=$(bash "$S" "$D/ncu-decode.csv" "$D/gpuprof-decode-bad.csv" "$L") \
  && fail "bad counts accepted: $out"
for want in "FAIL  ConvertNV12BLtoNV12 charged to pipeline0/qtdemux0 (1), which does not launch kernels" \
    "PASS  ConvertNV12BLtoNV12: ncu 2, gpuprof 2" \
    "FAIL  void scale<int, float>(float*): ncu 1, gpuprof 2" \
    "FAIL  kernel names 3, failures 2"; do
  grep -qxF "$want" <<< "$out" || fail "missing '$want' in: $out"
done
echo ok
