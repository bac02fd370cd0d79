#!/bin/bash
# bench/cupti-cost.sh runs on the GPU host only; its table is made here from
# canned raw times (tests/gpu/data/cupti-cost-times.txt: medians of odd and
# even counts, a mode faster than none) and must equal the expected table
# (checked by hand: e.g. small64 callback (3.8 - 3.5) s / 140000 ops =
# 2.14 us per op; hd1080 none median of 3.1 and 3.3 = 3.2; the exec table:
# small64 callback (3.5 - 3.15) s / 140000 = 2.50 us per op above off, and
# (3.5 - 3.15) / (3.24 - 3.1) = 2.50 for (callback-off)/(min-none); paired
# by round: small64 off - none = 0.7, 0.4, 0.7 -> 0.700; exec (round 1
# only) (3.5 - 3.15) / (3.24 - 3.0) = 1.46).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA="$ROOT/tests/gpu/data"
out=$(bash "$ROOT/bench/cupti-cost.sh" --summarize "$DATA/cupti-cost-times.txt") || exit 1
if ! diff -u "$DATA/cupti-cost-summary.txt" - <<< "$out"; then
  echo "FAIL: cupti-cost.sh summary differs" >&2
  exit 1
fi
# no stray file from an awk redirection in the summary
if [ -e 0 ]; then echo "FAIL: summary wrote a file named 0" >&2; exit 1; fi
echo "ok"
