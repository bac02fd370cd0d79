/* gpuprof: timeline trace writer (see gpuprof-trace.h, docs/trace.md).
 *
 * The transport: rings, the writer thread, the file and its size cap. The
 * format of each event is gpuprof-trace-chrome.c, launch arrows
 * gpuprof-trace-flows.c (see gpuprof-trace-private.h).
 *
 * Threads: streaming threads only push into their rings. Everything else
 * here runs in whoever drains — the writer thread every DRAIN_PERIOD_US, or
 * the caller of gpuprof_trace_flush()/close() — serialised by drain_lock.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-json.h"
#include "gpuprof-outfile.h"
#include "gpuprof-trace-private.h"

#include <gst/gst.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* shared with gpuprof-trace-flows.c */
GST_DEBUG_CATEGORY (gpuprof_trace_debug);
#define GST_CAT_DEFAULT gpuprof_trace_debug

#define DRAIN_PERIOD_US (20 * G_TIME_SPAN_MILLISECOND)
#define BATCH_EVENTS 1024
/* write out the chunk when it reaches this size: bounds the writer's memory */
#define CHUNK_BYTES (1 << 20)
/* a drain this large means producers are fast: drain again at once */
#define BUSY_DRAIN_EVENTS 4096
/* distinct kernel names kept; later ones are written as "kernel" */
#define MAX_NAMES 65536

/* --- writing the file ---------------------------------------------------- */

static void
fail (GpuprofTrace * trace, const gchar * what, gint errsv)
{
  if (trace->stats.failed)
    return;
  trace->stats.failed = TRUE;
  trace->writing = FALSE;
  trace->error_message =
      g_strdup_printf ("gpuprof: cannot %s trace file '%s': %s; "
      "tracing stopped, the pipeline goes on", what, trace->path,
      g_strerror (errsv));
  /* the one message for the user; later events are silently counted */
  GST_ERROR ("%s", trace->error_message);
  g_printerr ("%s\n", trace->error_message);
}

static void
write_out (GpuprofTrace * trace)
{
  const gchar *p = trace->out->str;
  gsize left = trace->out->len;

  while (left > 0 && !trace->stats.failed) {
    gssize n = write (trace->fd, p, left);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      fail (trace, "write", n < 0 ? errno : ENOSPC);
      break;
    }
    p += n;
    left -= n;
    trace->stats.bytes_written += n;
  }
  g_string_truncate (trace->out, 0);
}

static gboolean
over_cap (GpuprofTrace * trace)
{
  return trace->max_bytes > 0
      && trace->stats.bytes_written + trace->out->len > trace->max_bytes;
}

static void
write_event (GpuprofTrace * trace, const GpuprofEvent * ev)
{
  gsize mark = trace->out->len;
  gboolean first = trace->first_event;
  guint64 written = trace->stats.events_written;

  if (!trace->writing) {
    trace->stats.events_dropped++;
    return;
  }
  if (!gpuprof_trace_chrome_write_event (trace, ev)) {
    trace->stats.events_filtered++;
    return;
  }

  if (over_cap (trace)) {
    /* undo this event: the file stays below the cap, then say why it ends */
    g_string_truncate (trace->out, mark);
    trace->first_event = first;
    trace->stats.events_written = written;
    trace->stats.events_dropped++;
    trace->stats.capped = TRUE;
    trace->writing = FALSE;
    gpuprof_trace_chrome_write_cap_mark (trace);
    GST_WARNING ("trace %s reached its cap of %" G_GUINT64_FORMAT
        " bytes: no more events", trace->path, trace->max_bytes);
  } else if (trace->out->len >= CHUNK_BYTES) {
    write_out (trace);
  }
}

static void
update_pipeline_name (GpuprofTrace * trace)
{
  gchar *name;

  if (!trace->names.pipeline_name || !trace->writing)
    return;
  name = trace->names.pipeline_name (trace->names.user_data);
  if (name && g_strcmp0 (name, trace->pipeline_name) != 0) {
    gpuprof_trace_chrome_write_process_name (trace, name);
    g_free (trace->pipeline_name);
    trace->pipeline_name = name;
  } else {
    g_free (name);
  }
}

/* drain_lock held. Returns the number of events drained. */
static guint
drain_locked (GpuprofTrace * trace)
{
  guint total = 0, i, n, k;

  g_mutex_lock (&trace->lock);
  g_ptr_array_set_size (trace->drain_rings, 0);
  for (i = 0; i < trace->rings->len; i++)
    g_ptr_array_add (trace->drain_rings, g_ptr_array_index (trace->rings, i));
  trace->remember_chains = trace->gpu_producer;
  g_mutex_unlock (&trace->lock);

  update_pipeline_name (trace);

  g_mutex_lock (&trace->shared_lock);
  while ((n = gpuprof_ring_pop (trace->shared_ring, trace->batch,
              BATCH_EVENTS)) > 0) {
    if (trace->event_func)
      trace->event_func (trace->batch, n, trace->event_data);
    for (k = 0; k < n; k++)
      write_event (trace, &trace->batch[k]);
    total += n;
  }
  g_mutex_unlock (&trace->shared_lock);

  for (i = 0; i < trace->drain_rings->len; i++) {
    GpuprofRing *ring = g_ptr_array_index (trace->drain_rings, i);

    /* take only what is there now, so a busy thread cannot starve others */
    guint level = gpuprof_ring_level (ring);

    while (level > 0 && (n = gpuprof_ring_pop (ring, trace->batch,
                MIN (level, BATCH_EVENTS))) > 0) {
      if (trace->event_func)
        trace->event_func (trace->batch, n, trace->event_data);
      for (k = 0; k < n; k++)
        write_event (trace, &trace->batch[k]);
      level -= n;
      total += n;
    }
  }
  if (trace->out->len > 0 && !trace->stats.failed)
    write_out (trace);
  g_string_truncate (trace->out, 0);
  return total;
}

static gpointer
writer_thread (gpointer data)
{
  GpuprofTrace *trace = data;

  g_mutex_lock (&trace->lock);
  while (!trace->stop) {
    guint n;

    g_mutex_unlock (&trace->lock);
    g_mutex_lock (&trace->drain_lock);
    n = drain_locked (trace);
    g_mutex_unlock (&trace->drain_lock);
    g_mutex_lock (&trace->lock);
    if (n < BUSY_DRAIN_EVENTS && !trace->stop)
      g_cond_wait_until (&trace->cond, &trace->lock,
          g_get_monotonic_time () + DRAIN_PERIOD_US);
  }
  g_mutex_unlock (&trace->lock);
  return NULL;
}

/* --- public API ---------------------------------------------------------- */

/**
 * gpuprof_trace_new:
 * @path: file to write (created or truncated)
 * @names: how to turn ids into names; copied
 * @max_bytes: size cap of the file (the trace-max-mb parameter), 0 for none
 * @element_filter: (nullable): only elements whose path matches are traced
 *   (the trace-elements parameter); a reference is taken
 * @err: where to put the error when @path cannot be opened
 *
 * Opens @path, writes the opening bracket and starts the writer thread. When
 * the file cannot be created, prints one error for the user (naming the path
 * and the reason), sets @err and returns %NULL: the caller simply traces
 * nothing and must not print the error again.
 *
 * Returns: (transfer full) (nullable): the trace, or %NULL on error
 */
GpuprofTrace *
gpuprof_trace_new (const gchar * path, const GpuprofTraceNames * names,
    guint64 max_bytes, GRegex * element_filter, GError ** err)
{
  GpuprofTrace *trace;
  gint fd, errsv = 0;

  g_return_val_if_fail (path != NULL, NULL);

  GST_DEBUG_CATEGORY_INIT (gpuprof_trace_debug, "gpuprof-trace", 0,
      "gpuprof timeline trace writer");

  /* a FIFO without a reader fails here rather than hang the tracer's
   * creation; /dev/stdout is written at its offset, not truncated */
  fd = gpuprof_outfile_open_fd (path, GPUPROF_OUTFILE_TRUNCATE, &errsv);
  if (fd < 0) {
    gchar *msg = g_strdup_printf ("gpuprof: cannot create trace file '%s': "
        "%s; running without a trace", path, g_strerror (errsv));

    GST_ERROR ("%s", msg);
    g_printerr ("%s\n", msg);
    g_set_error_literal (err, G_FILE_ERROR, g_file_error_from_errno (errsv),
        msg);
    g_free (msg);
    return NULL;
  }

  trace = g_new0 (GpuprofTrace, 1);
  trace->path = g_strdup (path);
  if (names)
    trace->names = *names;
  trace->filter = element_filter ? g_regex_ref (element_filter) : NULL;
  trace->max_bytes = max_bytes;
  trace->stats.max_bytes = max_bytes;
  trace->pid = getpid ();
  trace->fd = fd;
  g_mutex_init (&trace->lock);
  g_cond_init (&trace->cond);
  g_mutex_init (&trace->drain_lock);
  g_mutex_init (&trace->shared_lock);
  g_mutex_init (&trace->names_lock);
  trace->name_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  trace->name_json = g_ptr_array_new_with_free_func (g_free);
  trace->rings = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gpuprof_ring_free);
  trace->ring_by_tid = g_hash_table_new (NULL, NULL);
  trace->shared_ring = gpuprof_ring_new (0, 4096);
  trace->out = g_string_sized_new (CHUNK_BYTES + 4096);
  trace->batch = g_new (GpuprofEvent, BATCH_EVENTS);
  trace->drain_rings = g_ptr_array_new ();
  trace->elements = g_hash_table_new_full (NULL, NULL, NULL,
      gpuprof_trace_chrome_element_name_free);
  trace->pads = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  trace->threads = g_hash_table_new_full (NULL, NULL, NULL,
      gpuprof_trace_chrome_thread_state_free);
  trace->first_event = TRUE;
  trace->writing = TRUE;

  g_string_append (trace->out, "[\n");
  write_out (trace);
  if (trace->stats.failed) {
    g_set_error_literal (err, G_FILE_ERROR, G_FILE_ERROR_IO,
        trace->error_message);
    trace->closed = TRUE;
    gpuprof_trace_free (trace);
    return NULL;
  }
  trace->thread = g_thread_new ("gpuprof-trace", writer_thread, trace);
  return trace;
}

/**
 * gpuprof_trace_ring_for_thread:
 * @trace: the trace
 * @thread_id: the calling thread's gpuprof id
 *
 * Called by a streaming thread the first time it has an event for the trace
 * (takes a lock and allocates); the hook keeps the pointer in its per-thread
 * state and calls gpuprof_trace_push() with it from then on. Only the thread
 * that asked may push to the ring. The ring lives until gpuprof_trace_free().
 *
 * Returns: (transfer none): the ring of @thread_id
 */
GpuprofRing *
gpuprof_trace_ring_for_thread (GpuprofTrace * trace, guint32 thread_id)
{
  return gpuprof_trace_ring_for_producer (trace, thread_id,
      GPUPROF_RING_DEFAULT_CAPACITY);
}

/**
 * gpuprof_trace_ring_for_producer:
 * @trace: the trace
 * @producer_id: a gpuprof thread id, or an id of the producer's own outside
 *   their range (GPUPROF_EVENT_GPU_TRACK_BASE for the GPU ops)
 * @capacity: events, 0 for the default; used when the ring is created
 *
 * Like gpuprof_trace_ring_for_thread(), for a producer that is not one
 * streaming thread: its pushes must be serialised by a lock of its own
 * (the GPU op listener runs under the correlation engine's lock).
 *
 * Returns: (transfer none): the ring of @producer_id
 */
GpuprofRing *
gpuprof_trace_ring_for_producer (GpuprofTrace * trace, guint32 producer_id,
    guint capacity)
{
  GpuprofRing *ring;
  guint32 thread_id = producer_id;

  g_mutex_lock (&trace->lock);
  ring = g_hash_table_lookup (trace->ring_by_tid, GUINT_TO_POINTER (thread_id));
  if (ring == NULL) {
    ring = gpuprof_ring_new (thread_id, capacity);
    /* chain calls are remembered only when arrows may need them */
    if (producer_id >= GPUPROF_EVENT_GPU_TRACK_BASE)
      trace->gpu_producer = TRUE;
    g_ptr_array_add (trace->rings, ring);
    g_hash_table_insert (trace->ring_by_tid, GUINT_TO_POINTER (thread_id),
        ring);
  }
  g_mutex_unlock (&trace->lock);
  return ring;
}

/**
 * gpuprof_trace_push_locked:
 * @trace: the trace
 * @ev: the event; copied
 *
 * For rare events from threads that have no ring (an application thread's
 * state change): takes a lock. Do not mix with gpuprof_trace_push() for the
 * same thread id, or that thread's events may come out of order.
 */
void
gpuprof_trace_push_locked (GpuprofTrace * trace, const GpuprofEvent * ev)
{
  g_mutex_lock (&trace->shared_lock);
  gpuprof_ring_push (trace->shared_ring, ev);
  g_mutex_unlock (&trace->shared_lock);
}

/**
 * gpuprof_trace_wake:
 * @trace: the trace
 *
 * Asks the writer thread to drain now rather than at its next period (a
 * producer whose ring fills up in bursts). Takes a lock; never waits for I/O.
 */
void
gpuprof_trace_wake (GpuprofTrace * trace)
{
  g_mutex_lock (&trace->lock);
  g_cond_signal (&trace->cond);
  g_mutex_unlock (&trace->lock);
}

/**
 * gpuprof_trace_intern_name:
 * @trace: the trace
 * @name: a string an event refers to (a kernel name)
 *
 * Gives @name a small id that fits an event field (GPUPROF_EVENT_GPU_OP's
 * pad_id); the writer turns it back into the string. The same string gets
 * the same id. Takes a lock and may allocate: not for streaming threads.
 * At most 65536 names are kept: later ones get 0 ("no name").
 *
 * Returns: the id, >= 1, or 0
 */
guint32
gpuprof_trace_intern_name (GpuprofTrace * trace, const gchar * name)
{
  gpointer id;

  if (name == NULL)
    return 0;
  g_mutex_lock (&trace->names_lock);
  id = g_hash_table_lookup (trace->name_ids, name);
  if (id == NULL && trace->name_json->len < MAX_NAMES) {
    g_ptr_array_add (trace->name_json, gpuprof_json_quote (name));
    id = GUINT_TO_POINTER (trace->name_json->len);
    g_hash_table_insert (trace->name_ids, g_strdup (name), id);
  }
  g_mutex_unlock (&trace->names_lock);
  return GPOINTER_TO_UINT (id);
}

/**
 * gpuprof_trace_flush:
 * @trace: the trace
 *
 * Drains every ring to the file now, in the calling thread (call it at EOS).
 * Waits for a drain already running in the writer thread.
 */
void
gpuprof_trace_flush (GpuprofTrace * trace)
{
  g_mutex_lock (&trace->drain_lock);
  drain_locked (trace);
  g_mutex_unlock (&trace->drain_lock);
}

/**
 * gpuprof_trace_set_event_func:
 * @trace: the trace
 * @func: (nullable): called with each batch of drained events
 * @user_data: passed to @func
 *
 * See #GpuprofTraceEventFunc. Takes the drain lock: a call in progress
 * ends first.
 */
void
gpuprof_trace_set_event_func (GpuprofTrace * trace,
    GpuprofTraceEventFunc func, gpointer user_data)
{
  g_mutex_lock (&trace->drain_lock);
  trace->event_func = func;
  trace->event_data = user_data;
  g_mutex_unlock (&trace->drain_lock);
}

void
gpuprof_trace_forget_names (GpuprofTrace * trace, const GArray * element_ids,
    const GArray * pad_ids)
{
  guint i;

  g_mutex_lock (&trace->drain_lock);
  for (i = 0; i < element_ids->len; i++)
    g_hash_table_remove (trace->elements,
        GUINT_TO_POINTER (g_array_index (element_ids, guint32, i)));
  for (i = 0; i < pad_ids->len; i++)
    g_hash_table_remove (trace->pads,
        GUINT_TO_POINTER (g_array_index (pad_ids, guint32, i)));
  g_mutex_unlock (&trace->drain_lock);
}

/* Written even after the cap: the summary is what `gst-gpuprof report`
 * needs, and it is small. */
static void
add_summary_locked (GpuprofTrace * trace, const gchar * summary_json)
{
  if (trace->stats.failed || trace->closed)
    return;
  gpuprof_trace_chrome_write_summary (trace, summary_json);
  write_out (trace);
}

/**
 * gpuprof_trace_add_summary:
 * @trace: the trace
 * @summary_json: a run summary from gpuprof_summary_to_json()
 *
 * Drains, then writes @summary_json into the trace as a global instant event
 * "gpuprof summary", so `gst-gpuprof report` prints the report from the
 * trace. Call it once per pipeline report (the last one may instead be given
 * to gpuprof_trace_close()).
 */
void
gpuprof_trace_add_summary (GpuprofTrace * trace, const gchar * summary_json)
{
  g_return_if_fail (summary_json != NULL);

  g_mutex_lock (&trace->drain_lock);
  drain_locked (trace);
  add_summary_locked (trace, summary_json);
  g_mutex_unlock (&trace->drain_lock);
}

static guint64
sum_lost (GpuprofTrace * trace)
{
  guint64 lost;
  guint i;

  g_mutex_lock (&trace->lock);
  lost = gpuprof_ring_lost (trace->shared_ring);
  for (i = 0; i < trace->rings->len; i++)
    lost += gpuprof_ring_lost (g_ptr_array_index (trace->rings, i));
  g_mutex_unlock (&trace->lock);
  return lost;
}

/**
 * gpuprof_trace_close:
 * @trace: the trace
 * @summary_json: (nullable): run summary to store, see
 *   gpuprof_trace_add_summary()
 * @err: where to put a write error
 *
 * Stops the writer thread, drains the rings, writes the summary, a final
 * "gpuprof trace" event with the writer's counters and the closing bracket,
 * and closes the file. Later pushes are counted, never written. Call it at
 * the end of the run (pipeline to NULL, process exit); calling it again does
 * nothing. The rings stay allocated until gpuprof_trace_free(), so a hook
 * still running cannot touch freed memory.
 *
 * Returns: %TRUE when the whole file was written
 */
gboolean
gpuprof_trace_close (GpuprofTrace * trace, const gchar * summary_json,
    GError ** err)
{
  g_mutex_lock (&trace->lock);
  trace->stop = TRUE;
  g_cond_signal (&trace->cond);
  g_mutex_unlock (&trace->lock);
  if (trace->thread) {
    g_thread_join (trace->thread);
    trace->thread = NULL;
  }

  g_mutex_lock (&trace->drain_lock);
  if (!trace->closed) {
    drain_locked (trace);
    gpuprof_trace_flows_write_orphans (trace);
    if (summary_json)
      add_summary_locked (trace, summary_json);
    if (!trace->stats.failed) {
      trace->stats.events_lost = sum_lost (trace);
      gpuprof_trace_chrome_write_stats (trace);
      g_string_append (trace->out, "\n]\n");
      write_out (trace);
    }
    if (close (trace->fd) < 0)
      fail (trace, "close", errno);
    trace->fd = -1;
    trace->closed = TRUE;
    trace->writing = FALSE;
  }
  g_mutex_unlock (&trace->drain_lock);

  if (trace->stats.failed) {
    g_set_error_literal (err, G_FILE_ERROR, G_FILE_ERROR_IO,
        trace->error_message);
    return FALSE;
  }
  return TRUE;
}

/**
 * gpuprof_trace_free:
 * @trace: (transfer full) (nullable): the trace
 *
 * Closes the trace (without a summary) if needed and frees it, rings
 * included: call it only when no hook can push any more.
 */
void
gpuprof_trace_free (GpuprofTrace * trace)
{
  if (trace == NULL)
    return;
  if (!trace->closed)
    gpuprof_trace_close (trace, NULL, NULL);
  if (trace->fd >= 0)
    close (trace->fd);
  g_ptr_array_unref (trace->rings);
  g_hash_table_unref (trace->ring_by_tid);
  gpuprof_ring_free (trace->shared_ring);
  g_string_free (trace->out, TRUE);
  g_free (trace->batch);
  g_ptr_array_unref (trace->drain_rings);
  g_hash_table_unref (trace->elements);
  g_hash_table_unref (trace->pads);
  g_hash_table_unref (trace->threads);
  if (trace->filter)
    g_regex_unref (trace->filter);
  g_mutex_clear (&trace->lock);
  g_cond_clear (&trace->cond);
  g_mutex_clear (&trace->drain_lock);
  g_mutex_clear (&trace->shared_lock);
  g_mutex_clear (&trace->names_lock);
  g_hash_table_unref (trace->name_ids);
  g_ptr_array_unref (trace->name_json);
  g_free (trace->pipeline_name);
  g_free (trace->error_message);
  g_free (trace->path);
  g_free (trace);
}

/**
 * gpuprof_trace_get_path:
 * @trace: the trace
 *
 * Returns: the file name given to gpuprof_trace_new()
 */
const gchar *
gpuprof_trace_get_path (const GpuprofTrace * trace)
{
  return trace->path;
}

/**
 * gpuprof_trace_get_stats:
 * @trace: the trace
 * @stats: (out caller-allocates): the writer's counters so far
 */
void
gpuprof_trace_get_stats (GpuprofTrace * trace, GpuprofTraceStats * stats)
{
  g_mutex_lock (&trace->drain_lock);
  *stats = trace->stats;
  g_mutex_unlock (&trace->drain_lock);
  stats->events_lost = sum_lost (trace);
}

/**
 * gpuprof_trace_describe:
 * @trace: the trace
 *
 * One line for the end-of-run report, e.g. "trace: run.json, 12.3 MB,
 * 210000 events; capped at 10.0 MB (trace-max-mb), 5000 events not written".
 *
 * Returns: (transfer full): the line, without a newline
 */
gchar *
gpuprof_trace_describe (GpuprofTrace * trace)
{
  GpuprofTraceStats st;
  GString *s = g_string_new (NULL);

  gpuprof_trace_get_stats (trace, &st);
  g_string_append_printf (s, "trace: %s, %.1f MB, %" G_GUINT64_FORMAT
      " events", trace->path, st.bytes_written / 1e6, st.events_written);
  if (st.failed)
    g_string_append_printf (s, "; write failed, %" G_GUINT64_FORMAT
        " events not written", st.events_dropped);
  else if (st.capped)
    g_string_append_printf (s, "; capped at %.1f MB (trace-max-mb), %"
        G_GUINT64_FORMAT " events not written", st.max_bytes / 1e6,
        st.events_dropped);
  if (st.events_lost)
    g_string_append_printf (s, "; %" G_GUINT64_FORMAT " events lost "
        "(writer behind)", st.events_lost);
  if (st.events_filtered)
    g_string_append_printf (s, "; %" G_GUINT64_FORMAT " events filtered "
        "(trace-elements)", st.events_filtered);
  return g_string_free (s, FALSE);
}
