#!/usr/bin/env python3
"""GPU kernels of a Chrome trace (trace=) per element and per batch.

  gpu-trace-batches.py TRACE.json ELEMENT_SUFFIX KERNELS_PER_BATCH [NAME...]

Prints how many kernels the trace has, how many of those whose name
contains one of NAME (default: the analytics example's inference kernels,
preprocess_kernel and dense_kernel) are charged to the element whose path
ends with ELEMENT_SUFFIX (issue 9: >= 99 %), and how the element's kernels spread over its batch numbers
("seq" of each GPU event): with KERNELS_PER_BATCH kernels launched per
batch, every batch must have exactly that many — a batch charged its
neighbour's launches shows up as a batch with 2x and one with 0.
Exit 1 when either check fails."""
import collections
import json
import sys

path, suffix, per_batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = sys.argv[4:] or ["preprocess_kernel", "dense_kernel"]
with open(path) as f:
    doc = json.load(f)
events = doc["traceEvents"] if isinstance(doc, dict) else doc
kernels = [e for e in events if e.get("cat") == "gpu" and e.get("ph") == "X"
           and (e.get("args") or {}).get("kind") == "kernel"]
by_element = collections.Counter(
    (e["args"].get("element") or "unattributed") for e in kernels)
launched = [e for e in kernels if any(n in e.get("name", "") for n in names)]
mine = [e for e in launched
        if str(e["args"].get("element", "")).endswith(suffix)]
per_seq = collections.Counter(e["args"].get("seq") for e in mine)
spread = collections.Counter(per_seq.values())
print("kernels: %d; by element: %s" % (len(kernels), dict(by_element)))
share = len(mine) / len(launched) if launched else 0.0
print("%s kernels: %d, charged to *%s: %d (%.2f %%)"
      % ("/".join(names), len(launched), suffix, len(mine), 100 * share))
print("batches with kernels: %d; kernels per batch -> batches: %s; "
      "no batch number: %d" % (len(per_seq), dict(sorted(spread.items())),
                               per_seq.get(None, 0)))
ok = share >= 0.99 and set(spread) == {per_batch} and None not in per_seq
print("CHECK %s" % ("PASS" if ok else "FAIL"))
sys.exit(0 if ok else 1)
