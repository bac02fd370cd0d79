/* gpuprof: checkpoint= — a thread of the session's own that calls one
 * function every period while the tracer lives (docs/outputs.md,
 * "Checkpoints"). The session's function rewrites stats= and html= from a
 * snapshot of each running pipeline, so a process killed by SIGTERM or
 * SIGKILL leaves its summary up to the last checkpoint; no signal handler
 * is installed in the application's process. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _GpuprofCheckpoint GpuprofCheckpoint;
typedef void (*GpuprofCheckpointFunc) (gpointer user_data);

/* Calls @func every @period_s seconds (not before the first period is
 * over; a late call, on a loaded machine, is not made up for). */
GpuprofCheckpoint *gpuprof_checkpoint_start (gdouble period_s,
    GpuprofCheckpointFunc func, gpointer user_data);
/* Stops and joins the thread: @func is not running and not called again
 * when it returns. NULL is fine. In a child forked after the start (no
 * checkpoint thread there) it only frees. */
void gpuprof_checkpoint_stop (GpuprofCheckpoint * c);

G_END_DECLS
