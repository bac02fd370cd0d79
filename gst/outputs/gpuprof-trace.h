/* gpuprof: timeline trace writer (Chrome trace-event JSON, array form).
 *
 * Hooks push fixed-size GpuprofEvents into their thread's ring
 * (gpuprof-ring.h); a writer thread drains all rings every 20 ms, resolves
 * ids to names through GpuprofTraceNames and appends one JSON event per line
 * to the file, which ui.perfetto.dev and chrome://tracing open. The file is
 * written in place (no temporary name) and flushed at every drain, so after
 * a SIGKILL it holds everything up to the last drain and loads with the
 * format's missing-closing-bracket rule. See docs/trace.md.
 */
#pragma once

#include <glib.h>
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
 * the streaming hot path: from the writer thread, and from the thread that
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

GpuprofTrace *gpuprof_trace_new (const gchar * path,
    const GpuprofTraceNames * names, guint64 max_bytes,
    GRegex * element_filter, GError ** err);
GpuprofRing *gpuprof_trace_ring_for_thread (GpuprofTrace * trace,
    guint32 thread_id);
GpuprofRing *gpuprof_trace_ring_for_producer (GpuprofTrace * trace,
    guint32 producer_id, guint capacity);
void gpuprof_trace_wake (GpuprofTrace * trace);
guint32 gpuprof_trace_intern_name (GpuprofTrace * trace, const gchar * name);
void gpuprof_trace_push_locked (GpuprofTrace * trace, const GpuprofEvent * ev);
void gpuprof_trace_flush (GpuprofTrace * trace);

/* Events as they are drained, before they are written (all of them, the
 * element filter and the size cap aside): for outputs that want the
 * stream too. Called under the drain lock, on the writer thread or the
 * thread that flushes; it must not call back into the trace. */
typedef void (*GpuprofTraceEventFunc) (const GpuprofEvent * events, guint n,
    gpointer user_data);
void gpuprof_trace_set_event_func (GpuprofTrace * trace,
    GpuprofTraceEventFunc func, gpointer user_data);
/* Elements and pads (ids) whose records were freed after a flush: their
 * names are not looked up again. */
void gpuprof_trace_forget_names (GpuprofTrace * trace,
    const GArray * element_ids, const GArray * pad_ids);
void gpuprof_trace_add_summary (GpuprofTrace * trace,
    const gchar * summary_json);
gboolean gpuprof_trace_close (GpuprofTrace * trace,
    const gchar * summary_json, GError ** err);
void gpuprof_trace_free (GpuprofTrace * trace);

const gchar *gpuprof_trace_get_path (const GpuprofTrace * trace);
void gpuprof_trace_get_stats (GpuprofTrace * trace, GpuprofTraceStats * stats);
gchar *gpuprof_trace_describe (GpuprofTrace * trace);

/**
 * gpuprof_trace_push:
 * @ring: the calling thread's ring, from gpuprof_trace_ring_for_thread()
 * @ev: the event; copied
 *
 * Called by the hooks on the streaming thread that owns @ring. O(1), no
 * lock, no allocation, no I/O; never blocks (a full ring counts the event
 * as lost).
 */
static inline void
gpuprof_trace_push (GpuprofRing * ring, const GpuprofEvent * ev)
{
  gpuprof_ring_push (ring, ev);
}

G_END_DECLS
