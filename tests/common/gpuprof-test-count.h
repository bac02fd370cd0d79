/* Buffers through an element's pads, counted by pad probes: the truth the
 * queue tests compare the tracer's counts with. Needs only GStreamer (no
 * GstCheck), so standalone programs (tests/trace/queue-truth.c) use it
 * too. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* Read with g_atomic_int_get () while the pipeline runs. */
typedef struct
{
  gint in, out;                 /* buffers through its sink / src pads */
  gint lists_in;                /* of the calls on its sink pads, lists */
} GpuprofTestCount;

/* Buffers in one probed call: a buffer list counts as its length. */
guint gpuprof_test_probe_buffers (GstPadProbeInfo * info);

/* Counts into @count the buffers through every pad @element has now (a
 * multiqueue's request pads too). */
void gpuprof_test_count_pads (GstElement * element, GpuprofTestCount * count);

G_END_DECLS
