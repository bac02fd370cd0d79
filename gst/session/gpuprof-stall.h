/* gpuprof: the stall watchdog (stall=, docs/live.md). The session's live
 * thread calls it every tick with the report lock held; it samples the
 * pads' buffer counters (no hook does anything for it) and says, once per
 * stall, where a flowing pipeline stopped or that a PLAYING pipeline never
 * got a buffer. */
#pragma once

#include "gpuprof-objects.h"

G_BEGIN_DECLS

typedef struct _GpuprofStall GpuprofStall;

/* stall_s: seconds without a buffer that make a stall; 0 = auto (four
 * times the pad's normal gap between buffers, at least 2 s) */
GpuprofStall *gpuprof_stall_new (gdouble stall_s);
void gpuprof_stall_free (GpuprofStall * s);
/* report lock held */
void gpuprof_stall_check (GpuprofStall * s, GpuprofObjects * o, guint64 now);
/* the end of a run of pl: its watch starts again */
void gpuprof_stall_run_end (GpuprofStall * s, GpuprofPipeline * pl);
/* "pipeline0/src, pipeline0/src2": the sources of pl among all (the
 * registry's elements) */
gchar *gpuprof_stall_sources (GPtrArray * all, GpuprofPipeline * pl);

G_END_DECLS
