#!/bin/bash
# Kernel counts per name, gpuprof against Nsight Compute (issue 11's host check):
#   tests/gpu/kernel-counts.sh NCU_CSV GPU_KERNELS_CSV LAUNCHERS_ERE
# NCU_CSV: `ncu --csv --print-kernel-base mangled --metrics
#   gpu__time_duration.sum ...` output (one row per kernel launch and metric;
#   "==PROF==" lines skipped; launches counted by distinct ID).
# GPU_KERNELS_CSV: the tracer's <stats>-gpu_kernels.csv (name,element,calls,ns;
#   CRLF, RFC 4180 quoting).
# LAUNCHERS_ERE: extended regex of the element paths allowed to own kernels
#   (e.g. '/(nvh264dec|cudaconvert|cudascale)[0-9]*$').
# Prints one PASS/FAIL line per kernel name (counts equal) and per kernel
# charged to an element outside LAUNCHERS_ERE (always FAIL), then a summary;
# exit 1 when anything failed. Tested with canned files:
# tests/gpu/test-kernel-counts.sh.
set -u
NCU=${1:?ncu csv}
GP=${2:?gpu_kernels csv}
LAUNCHERS=${3:?launchers regex}

awk -v launchers="$LAUNCHERS" '
  # RFC 4180 split of one line into f[1..n]; returns n
  function csv(line, f,   n, i, c, q, cell) {
    n = 0; cell = ""; q = 0
    sub(/\r$/, "", line)
    for (i = 1; i <= length(line); i++) {
      c = substr(line, i, 1)
      if (q) {
        if (c == "\"" && substr(line, i + 1, 1) == "\"") { cell = cell "\""; i++ }
        else if (c == "\"") q = 0
        else cell = cell c
      } else if (c == "\"") q = 1
      else if (c == ",") { f[++n] = cell; cell = "" }
      else cell = cell c
    }
    f[++n] = cell
    return n
  }
  FNR == 1 { file = (FILENAME == ARGV[1]) ? 1 : 2 }
  file == 1 && /^==/ { next }
  file == 1 && !ncol {
    n = csv($0, h)
    for (i = 1; i <= n; i++) { if (h[i] == "Kernel Name") ncol = i; if (h[i] == "ID") icol = i }
    next
  }
  file == 1 {
    csv($0, f)
    if (f[ncol] == "" ) next
    key = f[ncol] SUBSEP (icol ? f[icol] : FNR)
    if (key in seen) next
    seen[key] = 1
    ncu[f[ncol]]++; names[f[ncol]] = 1
    next
  }
  file == 2 && FNR == 1 {
    n = csv($0, h)
    for (i = 1; i <= n; i++) { if (h[i] == "name") gn = i; if (h[i] == "element") ge = i; if (h[i] == "calls") gc = i }
    next
  }
  file == 2 {
    if (csv($0, f) < 3) next
    rows++
    gp[f[gn]] += f[gc]; names[f[gn]] = 1
    if (f[ge] !~ launchers) {
      printf "FAIL  %s charged to %s (%d), which does not launch kernels\n", f[gn], f[ge], f[gc]
      bad++
    }
  }
  END {
    for (k in names) {
      ok = (ncu[k] + 0 == gp[k] + 0)
      printf "%s  %s: ncu %d, gpuprof %d\n", ok ? "PASS" : "FAIL", k, ncu[k], gp[k]
      if (!ok) bad++
    }
    if (rows >= 10)
      printf "note: %d rows in gpu_kernels (the table keeps 10): counts may be short\n", rows
    printf "%s  kernel names %d, failures %d\n", bad ? "FAIL" : "PASS", length(names), bad
    exit bad ? 1 : 0
  }' "$NCU" "$GP"
