#!/usr/bin/env bash
# gpuprof-nvml-check (the GPU host's NVML check, docs/resources.md) on the
# fake libnvidia-ml: it opens, lists the devices, prints the scripted
# figures in its columns, says why a field is unknown, and says in one line
# (exit 1) when there is no NVML.
# usage: test-nvml-check.sh BUILD   (env: FAKE_NVML_PATH, FAKE_NVML_OLD_PATH)
set -euo pipefail
check=$1/tests/gpu/gpuprof-nvml-check
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; cat "$out"; exit 1; }

FAKE_NVML_SCRIPT='0:decode-bound,used=2048' FAKE_NVML_DEVICES=2 \
  FAKE_NVML_PROC_PERIOD_MS=2 \
  "$check" --library "$FAKE_NVML_PATH" --count 2 --period-ms 10 --pcie \
  --cuda-device 1 >"$out"
grep -q '^# NVML: .*libfakenvml.so, 2 device(s); optional calls missing: none$' "$out" \
  || fail "no NVML line"
grep -q '^# gpu 1: Fake GPU, GPU-.*, PCI 00000000:29:00.0$' "$out" || fail "no device line"
grep -q '^# CUDA device 1 .* is NVML device 1 ' "$out" || fail "no CUDA mapping"
# time gpu sm mem enc dec sm_MHz max used total reasons rx tx procs samples
# self self_sm% self_dec% read_us
rows=$(awk '!/^#/ && $2 == 0 && $3 == 14 && $4 == 9 && $5 == 0 && $6 == 97 &&
  $7 == 1980 && $8 == 1980 && $9 == 2048 && $10 == 81559 && $11 == "none" &&
  $12 == 0' "$out" | wc -l)
[ "$rows" -eq 2 ] || fail "expected 2 decode-bound rows of gpu 0, got $rows"
# the second reading has the process samples of 5 periods: all ours
awk '!/^#/ && $1 > 0 && $14 == 1 && $15 >= 1 && $16 == $15 && $17 == 100 &&
  $18 == 100' "$out" | grep -q . || fail "no process samples of our own"
[ "$(grep -vc '^#' "$out")" -eq 4 ] || fail "expected 4 readings"

# an older driver: PCIe and process share unknown, said once each
FAKE_NVML_SCRIPT='0:compute-bound' \
  "$check" --library "$FAKE_NVML_OLD_PATH" --count 2 --period-ms 0 --pcie >"$out"
grep -q 'optional calls missing: nvmlDeviceGetPcieThroughput, nvmlDeviceGetProcessUtilization$' \
  "$out" || fail "missing calls not listed"
[ "$(grep -c "^# gpu 0: pcie unknown: not in this driver's NVML (-1)$" "$out")" -eq 1 ] \
  || fail "pcie unknown not said once"
awk '!/^#/ && $3 == 99 && $12 == "-" && $14 == "-"' "$out" | grep -q . \
  || fail "unknown columns not '-'"

# no NVML: one line on stderr, exit 1
set +e
"$check" --library /nonexistent/libnvidia-ml.so.1 >"$out" 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "exit status $rc without NVML"
[ "$(wc -l <"$out")" -eq 1 ] && grep -q '^NVML off: /nonexistent/libnvidia-ml.so.1 not loadable' "$out" \
  || fail "not one line"
echo "ok"
