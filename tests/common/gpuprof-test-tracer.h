/* The gpuprof tracer GST_TRACERS made active in this process. Needs only
 * GStreamer (no GstCheck), so standalone programs and bench/ use it too. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The active gpuprof tracer, or %NULL when there is none; it lives as long
 * as the process (no reference returned). */
GstTracer *gpuprof_test_find_tracer (void);

G_END_DECLS
