/* gpuprof: timeline trace writer (see gpuprof-trace.h, docs/trace.md).
 *
 * A sink of the core's event bus (gpuprof-bus.h): the file and its size
 * cap. The format of each event is gpuprof-trace-chrome.c, launch arrows
 * gpuprof-trace-flows.c (see gpuprof-trace-private.h).
 *
 * Threads: the bus calls us under its drain lock, on its drain thread or
 * on the thread that flushes; the trace's own lock guards its state against
 * the getters.
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

GST_DEBUG_CATEGORY_STATIC (gpuprof_trace_debug);
#define GST_CAT_DEFAULT gpuprof_trace_debug

/* write out the chunk when it reaches this size: bounds the writer's memory */
#define CHUNK_BYTES (1 << 20)
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

/* --- the bus's sink ----------------------------------------------------- */

static void
sink_begin (gpointer data)
{
  GpuprofTrace *trace = data;

  g_mutex_lock (&trace->lock);
  trace->remember_chains = __atomic_load_n (&trace->gpu_producer,
      __ATOMIC_ACQUIRE);
  update_pipeline_name (trace);
  g_mutex_unlock (&trace->lock);
}

static void
sink_events (const GpuprofEvent * events, guint n, gpointer data)
{
  GpuprofTrace *trace = data;
  guint k;

  g_mutex_lock (&trace->lock);
  for (k = 0; k < n; k++)
    write_event (trace, &events[k]);
  g_mutex_unlock (&trace->lock);
}

static void
sink_end (gpointer data)
{
  GpuprofTrace *trace = data;

  g_mutex_lock (&trace->lock);
  if (trace->out->len > 0 && !trace->stats.failed)
    write_out (trace);
  g_string_truncate (trace->out, 0);
  g_mutex_unlock (&trace->lock);
}

/* --- public API ---------------------------------------------------------- */

/**
 * gpuprof_trace_new:
 * @bus: the events' bus; the trace subscribes to it
 * @path: file to write (created or truncated)
 * @names: how to turn ids into names; copied
 * @max_bytes: size cap of the file (the trace-max-mb parameter), 0 for none
 * @element_filter: (nullable): only elements whose path matches are traced
 *   (the trace-elements parameter); a reference is taken
 * @err: where to put the error when @path cannot be opened
 *
 * Opens @path, writes the opening bracket and subscribes to @bus. When the
 * file cannot be created, prints one error for the user (naming the path
 * and the reason), sets @err and returns %NULL: the caller simply traces
 * nothing and must not print the error again.
 *
 * Returns: (transfer full) (nullable): the trace, or %NULL on error
 */
GpuprofTrace *
gpuprof_trace_new (GpuprofBus * bus, const gchar * path,
    const GpuprofTraceNames * names, guint64 max_bytes,
    GRegex * element_filter, GError ** err)
{
  static const GpuprofBusSink sink = { sink_begin, sink_events, sink_end };
  GpuprofTrace *trace;
  gint fd, errsv = 0;

  g_return_val_if_fail (bus != NULL, NULL);
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
  trace->bus = bus;
  trace->fd = fd;
  g_mutex_init (&trace->lock);
  g_mutex_init (&trace->names_lock);
  trace->name_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  trace->name_json = g_ptr_array_new_with_free_func (g_free);
  trace->out = g_string_sized_new (CHUNK_BYTES + 4096);
  trace->elements = g_hash_table_new_full (NULL, NULL, NULL,
      gpuprof_trace_chrome_element_name_free);
  trace->pads = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  trace->threads = g_hash_table_new_full (NULL, NULL, NULL,
      gpuprof_trace_chrome_thread_state_free);
  trace->flows = gpuprof_trace_flows_new ();
  trace->arrows = g_array_new (FALSE, FALSE, sizeof (GpuprofTraceArrow));
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
  trace->sink = gpuprof_bus_add_sink (bus, &sink, trace);
  return trace;
}

/**
 * gpuprof_trace_gpu_ring:
 * @trace: the trace
 * @capacity: events, 0 for the default
 *
 * The ring of the GPU op producer (gpuprof-gputrace.c) on the trace's bus:
 * from now on the trace remembers chain calls, to bind launch arrows into
 * them. Its pushes must be serialised by a lock of the producer's own (the
 * op listener runs under the correlation engine's lock).
 *
 * Returns: (transfer none): the ring
 */
GpuprofRing *
gpuprof_trace_gpu_ring (GpuprofTrace * trace, guint capacity)
{
  GpuprofRing *ring = gpuprof_bus_ring_for_producer (trace->bus,
      GPUPROF_EVENT_GPU_TRACK_BASE, capacity);

  __atomic_store_n (&trace->gpu_producer, TRUE, __ATOMIC_RELEASE);
  return ring;
}

/**
 * gpuprof_trace_get_bus:
 * @trace: the trace
 *
 * Returns: (transfer none): the bus given to gpuprof_trace_new()
 */
GpuprofBus *
gpuprof_trace_get_bus (GpuprofTrace * trace)
{
  return trace->bus;
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
 * Drains the bus to the file now, in the calling thread (call it at EOS).
 * Waits for a drain already running on the bus's thread.
 */
void
gpuprof_trace_flush (GpuprofTrace * trace)
{
  gpuprof_bus_flush (trace->bus);
}

void
gpuprof_trace_forget_names (GpuprofTrace * trace, const GArray * element_ids,
    const GArray * pad_ids)
{
  guint i;

  g_mutex_lock (&trace->lock);
  for (i = 0; i < element_ids->len; i++)
    g_hash_table_remove (trace->elements,
        GUINT_TO_POINTER (g_array_index (element_ids, guint32, i)));
  for (i = 0; i < pad_ids->len; i++)
    g_hash_table_remove (trace->pads,
        GUINT_TO_POINTER (g_array_index (pad_ids, guint32, i)));
  g_mutex_unlock (&trace->lock);
}

/* Written even after the cap: the summary is what `gst-gpuprof report`
 * needs, and it is small. Lock held. */
static void
add_summary_locked (GpuprofTrace * trace, const gchar * summary_json)
{
  if (trace->stats.failed || trace->closed)
    return;
  gpuprof_trace_chrome_write_summary (trace, summary_json);
  write_out (trace);
}

typedef struct
{
  GpuprofTrace *trace;
  const gchar *summary_json;
} Drained;

/* the bus drained, its drain lock still held */
static void
add_summary_drained (gpointer bus, gpointer data)
{
  Drained *d = data;

  g_mutex_lock (&d->trace->lock);
  add_summary_locked (d->trace, d->summary_json);
  g_mutex_unlock (&d->trace->lock);
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
  Drained d = { trace, summary_json };

  g_return_if_fail (summary_json != NULL);
  gpuprof_bus_flush_then (trace->bus, add_summary_drained, &d);
}

/* the bus drained, its drain lock still held: the end of the file */
static void
close_drained (gpointer bus, gpointer data)
{
  Drained *d = data;
  GpuprofTrace *trace = d->trace;

  g_mutex_lock (&trace->lock);
  if (!trace->closed) {
    gpuprof_trace_chrome_write_orphan_flows (trace);
    if (d->summary_json)
      add_summary_locked (trace, d->summary_json);
    if (!trace->stats.failed) {
      trace->stats.events_lost = gpuprof_bus_lost (bus);
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
  g_mutex_unlock (&trace->lock);
}

/**
 * gpuprof_trace_close:
 * @trace: the trace
 * @summary_json: (nullable): run summary to store, see
 *   gpuprof_trace_add_summary()
 * @err: where to put a write error
 *
 * Drains the bus, writes the summary, a final "gpuprof trace" event with the
 * writer's counters and the closing bracket, and closes the file. Later
 * events are counted, never written. Call it at the end of the run
 * (pipeline to NULL, process exit); calling it again does nothing.
 *
 * Returns: %TRUE when the whole file was written
 */
gboolean
gpuprof_trace_close (GpuprofTrace * trace, const gchar * summary_json,
    GError ** err)
{
  Drained d = { trace, summary_json };
  gboolean failed;

  gpuprof_bus_flush_then (trace->bus, close_drained, &d);
  g_mutex_lock (&trace->lock);
  failed = trace->stats.failed;
  if (failed)
    g_set_error_literal (err, G_FILE_ERROR, G_FILE_ERROR_IO,
        trace->error_message);
  g_mutex_unlock (&trace->lock);
  return !failed;
}

/**
 * gpuprof_trace_free:
 * @trace: (transfer full) (nullable): the trace
 *
 * Closes the trace (without a summary) if needed, leaves the bus and frees
 * the trace. The bus and its rings stay: free it afterwards.
 */
void
gpuprof_trace_free (GpuprofTrace * trace)
{
  if (trace == NULL)
    return;
  if (!trace->closed)
    gpuprof_trace_close (trace, NULL, NULL);
  if (trace->sink)
    gpuprof_bus_remove_sink (trace->bus, trace->sink);
  if (trace->fd >= 0)
    close (trace->fd);
  g_string_free (trace->out, TRUE);
  g_hash_table_unref (trace->elements);
  g_hash_table_unref (trace->pads);
  g_hash_table_unref (trace->threads);
  gpuprof_trace_flows_free (trace->flows);
  g_array_unref (trace->arrows);
  if (trace->filter)
    g_regex_unref (trace->filter);
  g_mutex_clear (&trace->lock);
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
  g_mutex_lock (&trace->lock);
  *stats = trace->stats;
  g_mutex_unlock (&trace->lock);
  stats->events_lost = gpuprof_bus_lost (trace->bus);
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
