#!/usr/bin/env python3
# Large summaries for tools-html.sh, made from a real one: 120 elements in a
# chain, each a copy of its first element.
#   chain: one outlier (e007) with 50x the others' self time
#   bins:  12 bins of 10, three factories; blocked time in another order
#          than work, so the sort by column shows
# Usage: tools-html-fixture.py chain|bins IN.json OUT.json
import copy
import json
import sys


def work(wall, e):
    # the graph fills by the share of the thread's time in the work (no
    # start-up, no wait for a core: the copies' own)
    e["thread_wall_ns"] = wall
    e["thread_self_ns"] = int(e["busy"] * wall)
    e["first_ns"] = e["first_calls"] = e["wait_core_ns"] = 0


def chain(wall, i, e):
    e["path"] = "big/e%03d" % i
    e["self_ns"] = wall // 100 * (50 if i == 7 else 1)
    e["busy"] = 0.01 * (50 if i == 7 else 1)
    work(wall, e)
    return "big/e007"


def bins(wall, i, e):
    e["path"] = "big/bin%02d/e%03d" % (i // 10, i)
    e["factory"] = ("identity", "videoconvert", "queue")[i % 3]
    e["self_ns"] = wall // 1000 * (1 + i)
    e["blocked_ns"] = wall // 1000 * ((i * 37) % 120)
    e["busy"] = 0.004 * (1 + i) if i != 77 else 0.9
    work(wall, e)
    return "big/bin07/e077"


kinds = {"chain": chain, "bins": bins}
if len(sys.argv) != 4 or sys.argv[1] not in kinds:
    sys.exit("usage: tools-html-fixture.py chain|bins IN.json OUT.json")
fill = kinds[sys.argv[1]]
s = json.load(open(sys.argv[2]))
proto = s["elements"][0]
wall = s["run"]["wall_ns"]
els, links = [], []
for i in range(120):
    e = copy.deepcopy(proto)
    s["run"]["bottleneck"] = fill(wall, i, e)
    els.append(e)
    if i:
        links.append({"src": els[i - 1]["path"], "src_pad": "src",
                      "sink": e["path"], "sink_pad": "sink", "buffers": 10})
s["elements"], s["links"], s["queues"], s["batches"] = els, links, [], []
json.dump(s, open(sys.argv[3], "w"))
