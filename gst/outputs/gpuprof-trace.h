/* gpuprof: timeline trace writer (Chrome trace-event JSON, array form).
 *
 * A sink of the core's event bus (gpuprof-bus.h): the hooks push
 * fixed-size GpuprofEvents into their thread's ring, the bus's thread
 * drains all rings every 20 ms into the trace, which resolves ids to names
 * through GpuprofTraceNames and appends one JSON event per line to the
 * file, which ui.perfetto.dev and chrome://tracing open. The file is
 * written in place (no temporary name) and flushed at every drain, so after
 * a SIGKILL it holds everything up to the last drain and loads with the
 * format's missing-closing-bracket rule. See docs/trace.md.
 */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>
#include "gpuprof-bus.h"
#include "gpuprof-event.h"
#include "gpuprof-ring.h"

G_BEGIN_DECLS

typedef struct _GpuprofTrace GpuprofTrace;

/**
 * GpuprofTraceNames:
 * @user_data: passed to every callback
 * @element_path: "pipeline0/q" for an element id; %NULL when unknown
 * @pad_name: "sink" (or "q:sink") for a pad id; %NULL when unknown
 * @thread_name: "q:src" for a gpuprof thread id; %NULL when unknown
 * @pipeline_name: name for the process track; %NULL when none yet
 *
 * How the writer turns ids into names. Each callback returns a newly
 * allocated string (or %NULL) and may be %NULL itself. They are called off
 * the streaming hot path: from the bus's thread, and from the thread that
 * calls gpuprof_trace_flush() or gpuprof_trace_close(); they must be
 * thread-safe and must not call back into the trace. Element and pad names
 * are cached after the first non-%NULL answer; thread and pipeline names are
 * asked again on GPUPROF_EVENT_THREAD_NAME and at every drain respectively.
 */
typedef struct
{
  gpointer user_data;
  gchar *(*element_path) (guint32 element_id, gpointer user_data);
  gchar *(*pad_name) (guint32 pad_id, gpointer user_data);
  gchar *(*thread_name) (guint32 thread_id, gpointer user_data);
  gchar *(*pipeline_name) (gpointer user_data);
} GpuprofTraceNames;

/**
 * GpuprofTraceStats:
 * @events_written: events written to the file
 * @events_lost: dropped at push because a ring was full (writer behind)
 * @events_dropped: drained but not written: after the size cap, a write
 *   error, or gpuprof_trace_close()
 * @events_filtered: not written because the element did not match the
 *   element filter
 * @bytes_written: size of the file so far
 * @max_bytes: the cap, 0 for none
 * @capped: %TRUE once the cap stopped the trace
 * @failed: %TRUE once opening or writing failed
 */
typedef struct
{
  guint64 events_written;
  guint64 events_lost;
  guint64 events_dropped;
  guint64 events_filtered;
  guint64 bytes_written;
  guint64 max_bytes;
  gboolean capped;
  gboolean failed;
} GpuprofTraceStats;

GPUPROF_API
GpuprofTrace *gpuprof_trace_new (GpuprofBus * bus, const gchar * path,
    const GpuprofTraceNames * names, guint64 max_bytes,
    GRegex * element_filter, GError ** err);
GpuprofRing *gpuprof_trace_gpu_ring (GpuprofTrace * trace, guint capacity);
GPUPROF_API
GpuprofBus *gpuprof_trace_get_bus (GpuprofTrace * trace);
guint32 gpuprof_trace_intern_name (GpuprofTrace * trace, const gchar * name);
GPUPROF_API
void gpuprof_trace_flush (GpuprofTrace * trace);

/* Elements and pads (ids) whose records were freed after a flush: their
 * names are not looked up again. */
void gpuprof_trace_forget_names (GpuprofTrace * trace,
    const GArray * element_ids, const GArray * pad_ids);
void gpuprof_trace_add_summary (GpuprofTrace * trace,
    const gchar * summary_json);
GPUPROF_API
gboolean gpuprof_trace_close (GpuprofTrace * trace,
    const gchar * summary_json, GError ** err);
GPUPROF_API
void gpuprof_trace_free (GpuprofTrace * trace);

const gchar *gpuprof_trace_get_path (const GpuprofTrace * trace);
GPUPROF_API
void gpuprof_trace_get_stats (GpuprofTrace * trace, GpuprofTraceStats * stats);
GPUPROF_API
gchar *gpuprof_trace_describe (GpuprofTrace * trace);

G_END_DECLS
