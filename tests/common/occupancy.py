"""An element's occupancy from its summary row, as the verdict computes it
(gpuprof_element_row_occupancy in gst/snapshot/gpuprof-snapshot.h): the
share of its thread's wall in its work, start-up apart, a source's wait
for a core added; busy where the row has no thread wall."""


def occupancy(e):
    self_ns, wall = e.get("thread_self_ns", 0), e.get("thread_wall_ns", 0)
    first = e.get("first_ns", 0)
    first = first if first <= self_ns else 0
    work = self_ns - first
    if e.get("role") == "source":
        work += e.get("wait_core_ns", 0)
    return min(1.0, work / (wall - first)) if wall > first else e["busy"]
