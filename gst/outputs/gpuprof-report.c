/* gpuprof: the end-of-run console report and its one-line verdict. */
#include "gpuprof-report.h"

#include "gpuprof-advice.h"
#include "gpuprof-gpu-verdict.h"

#include <string.h>

struct _GpuprofTable
{
  guint n_columns;
  GPtrArray *rows;              /* gchar** each, n_columns cells */
};

GpuprofTable *
gpuprof_table_new (guint n_columns, const gchar * const *headers)
{
  GpuprofTable *t = g_new0 (GpuprofTable, 1);

  t->n_columns = n_columns;
  t->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  gpuprof_table_add_rowv (t, (gchar **) headers);
  return t;
}

void
gpuprof_table_add_rowv (GpuprofTable * t, gchar ** cells)
{
  gchar **row = g_new0 (gchar *, t->n_columns + 1);
  guint i;

  for (i = 0; i < t->n_columns; i++)
    row[i] = g_strdup (cells[i] ? cells[i] : "");
  g_ptr_array_add (t->rows, row);
}

/* numbers right-aligned, words left-aligned */
static gboolean
column_is_numeric (GpuprofTable * t, guint c)
{
  guint r;

  for (r = 1; r < t->rows->len; r++) {
    const gchar *cell = ((gchar **) g_ptr_array_index (t->rows, r))[c];
    if (*cell && !g_ascii_isdigit (*cell) && *cell != '-')
      return FALSE;
  }
  return TRUE;
}

void
gpuprof_table_print (GpuprofTable * t, GString * out)
{
  guint *width = g_new0 (guint, t->n_columns);
  gboolean *right = g_new0 (gboolean, t->n_columns);
  guint r, c;

  for (c = 0; c < t->n_columns; c++)
    right[c] = c > 0 && column_is_numeric (t, c);

  for (r = 0; r < t->rows->len; r++) {
    gchar **row = g_ptr_array_index (t->rows, r);
    for (c = 0; c < t->n_columns; c++)
      width[c] = MAX (width[c], g_utf8_strlen (row[c], -1));
  }
  for (r = 0; r < t->rows->len; r++) {
    gchar **row = g_ptr_array_index (t->rows, r);
    GString *line = g_string_new ("  ");
    for (c = 0; c < t->n_columns; c++) {
      guint pad = width[c] - g_utf8_strlen (row[c], -1);
      if (c > 0)
        g_string_append (line, "  ");
      if (right[c])
        for (guint k = 0; k < pad; k++)
          g_string_append_c (line, ' ');
      g_string_append (line, row[c]);
      if (!right[c])
        for (guint k = 0; k < pad; k++)
          g_string_append_c (line, ' ');
    }
    while (line->len && line->str[line->len - 1] == ' ')
      g_string_truncate (line, line->len - 1);
    g_string_append_c (line, '\n');
    g_string_append (out, line->str);
    g_string_free (line, TRUE);
  }
  g_free (right);
  g_free (width);
}

void
gpuprof_table_free (GpuprofTable * t)
{
  g_ptr_array_unref (t->rows);
  g_free (t);
}

/* fixed units per column, so columns compare at a glance */
static gchar *
ms (guint64 ns)
{
  return g_strdup_printf ("%.3f", ns / 1e6);
}

static gchar *
us (guint64 ns)
{
  return g_strdup_printf ("%.1f", ns / 1e3);
}

static gchar *
pct (gdouble f)
{
  return g_strdup_printf ("%.1f", f * 100.0);
}

static gchar *
u64 (guint64 v)
{
  return g_strdup_printf ("%" G_GUINT64_FORMAT, v);
}

/* A row of owned strings (NULL cells allowed), freed once added. */
static void
add_owned_row (GpuprofTable * t, gchar ** cells)
{
  gpuprof_table_add_rowv (t, cells);
  for (guint i = 0; i < t->n_columns; i++)
    g_free (cells[i]);
}

/* window=: its edges on the tracer clock and the CUDA profiler's answer */
static void
format_window (const GpuprofSnapshot * s, GString * out)
{
  if (!s->window_profiler || !*s->window_profiler)
    return;
  g_string_append (out, "Window (window=): ");
  if (!s->window_start_ns)
    g_string_append (out, "never opened: every call was start-up");
  else if (s->window_end_ns)
    g_string_append_printf (out, "%.3f s to %.3f s (%.3f s)",
        s->window_start_ns / 1e9, s->window_end_ns / 1e9,
        (s->window_end_ns - s->window_start_ns) / 1e9);
  else
    g_string_append_printf (out, "from %.3f s to the end",
        s->window_start_ns / 1e9);
  g_string_append_printf (out, " of the tracer clock; the figures are of "
      "the calls inside it, those before it start-up; %s\n",
      s->window_profiler);
}

/* Start-up on its own line: the elements whose first call (or calls
 * before the window) took a millisecond or more, kept out of per-call
 * figures, percentiles, busy and the verdict */
static void
format_startup (const GpuprofSnapshot * s, GString * out)
{
  GString *line = g_string_new (NULL);
  guint i, n = 0;

  for (i = 0; i < s->elements->len; i++) {
    const GpuprofElementRow *r =
        &g_array_index (s->elements, GpuprofElementRow, i);

    if (r->first_ns < 1000000)
      continue;
    g_string_append_printf (line, "%s %s %.1f ms", n++ ? "," : "", r->path,
        r->first_ns / 1e6);
    if (r->first_calls > 1)
      g_string_append_printf (line, " (%" G_GUINT64_FORMAT " calls)",
          r->first_calls);
  }
  if (n)
    g_string_append_printf (out, "Start-up (first call%s; not in per-call "
        "figures, percentiles, busy or the verdict):%s\n",
        s->window_start_ns ? "s before the window" : "", line->str);
  g_string_free (line, TRUE);
}

static void
format_elements (const GpuprofSnapshot * s, GString * out)
{
  static const gchar *const headers[] = {
    "element", "role", "thread", "buf in", "buf out", "self ms",
    "self/call µs", "p50 µs", "p95 µs", "p99 µs", "max µs", "incl/call µs",
    "busy %", "cpu ms", "core wait ms", "threads", "blocked ms",
    "GPU wait ms", NULL
  };
  GpuprofTable *t;
  gboolean gpu_wait = FALSE;
  guint i;

  /* the GPU wait column only where CUPTI measured a wait */
  for (i = 0; i < s->elements->len && !gpu_wait; i++)
    gpu_wait = g_array_index (s->elements, GpuprofElementRow, i).gpu_wait_ns;
  t = gpuprof_table_new (gpu_wait ? 18 : 17, headers);
  for (i = 0; i < s->elements->len; i++) {
    const GpuprofElementRow *r =
        &g_array_index (s->elements, GpuprofElementRow, i);
    /* per call: the steady state's, start-up (first_ns) apart */
    guint64 calls = MAX (r->calls - MIN (r->first_calls, r->calls), 1);
    guint64 self = r->self_ns - MIN (r->first_ns, r->self_ns);
    gchar *cells[] = {
      g_strdup_printf ("%s%s", r->path, r->waits_on_clock ? " (clock)" : ""),
      g_strdup (r->role), g_strdup (r->thread), u64 (r->buffers_in),
      u64 (r->buffers_out), ms (r->self_ns), us (self / calls),
      us (r->self_p50_ns), us (r->self_p95_ns), us (r->self_p99_ns),
      us (r->self_max_ns), us (r->incl_ns / calls), pct (r->busy),
      ms (r->cpu_ns), ms (r->wait_core_ns), u64 (r->threads),
      ms (r->blocked_ns), gpu_wait ? ms (r->gpu_wait_ns) : NULL, NULL
    };
    add_owned_row (t, cells);
  }
  g_string_append (out, s->process_cpu_ns ? "Elements (by self time; busy "
      "= its work on a CPU / wall time of its busiest thread; cpu = its work "
      "on a CPU, all its threads; core wait = runnable, waiting for a core; "
      "blocked = upstream threads waiting inside it)\n" : "Elements (by self "
      "time; busy = self time / wall time of its thread; blocked = upstream "
      "threads waiting inside it)\n");
  if (gpu_wait)
    g_string_append (out, "(GPU wait = its threads waiting on the GPU in "
        "synchronize calls: not in self time nor busy)\n");
  gpuprof_table_print (t, out);
  gpuprof_table_free (t);
  format_startup (s, out);
}

static void
format_queues (const GpuprofSnapshot * s, GString * out)
{
  static const gchar *const headers[] = {
    "queue", "buffers", "res p50 ms", "res p99 ms", "res max ms",
    "max lvl buf", "max lvl KiB", "max lvl ms", "backpressure ms",
    "backpressure %", "drops", "flushed", "left", NULL
  };
  GpuprofTable *t;
  guint i;

  if (!s->queues->len)
    return;
  t = gpuprof_table_new (13, headers);
  for (i = 0; i < s->queues->len; i++) {
    const GpuprofQueueRow *r = &g_array_index (s->queues, GpuprofQueueRow, i);
    gchar *cells[] = {
      g_strdup (r->path), u64 (r->buffers), ms (r->residency_p50_ns),
      ms (r->residency_p99_ns), ms (r->residency_max_ns),
      u64 (r->max_level_buffers),
      g_strdup_printf ("%.1f", r->max_level_bytes / 1024.0),
      ms (r->max_level_time_ns), ms (r->backpressure_ns),
      pct (r->upstream_wall_ns ?
          (gdouble) r->backpressure_ns / r->upstream_wall_ns : 0.0),
      u64 (r->drops), u64 (r->flushed), u64 (r->left), NULL
    };
    add_owned_row (t, cells);
  }
  g_string_append (out, "\nQueues (residency = time a buffer spent inside; "
      "backpressure = upstream thread blocked on a full queue)\n");
  gpuprof_table_print (t, out);
  gpuprof_table_free (t);
}

static void
add_async_row (GpuprofTable * t, const GpuprofElementRow * r)
{
  gchar *cells[] = {
    g_strdup (r->path), u64 (r->buffers_out), ms (r->self_ns),
    ms (r->worker_ns), ms (r->self_ns / MAX (r->buffers_out, 1)),
    ms (r->residency_p50_ns), ms (r->residency_p99_ns),
    ms (r->residency_mean_ns), g_strdup_printf ("%.2f", r->in_flight_mean),
    u64 (r->in_flight_max), NULL
  };

  add_owned_row (t, cells);
}

/* Elements whose buffers leave on threads of their own (gpuprof-async.h) */
static void
format_async (const GpuprofSnapshot * s, GString * out)
{
  static const gchar *const headers[] = {
    "element", "buf out", "work ms", "workers ms", "work/buf ms",
    "res p50 ms", "res p99 ms", "res mean ms", "in flight", "max", NULL
  };
  GpuprofTable *t = gpuprof_table_new (10, headers);
  guint i, n = 0;

  for (i = 0; i < s->elements->len; i++) {
    const GpuprofElementRow *r =
        &g_array_index (s->elements, GpuprofElementRow, i);
    if (r->async) {
      add_async_row (t, r);
      n++;
    }
  }
  if (n) {
    g_string_append (out, "\nAsynchronous elements (work = on all its "
        "threads; residency = chain arrival -> push out; in flight = "
        "buffers inside)\n");
    gpuprof_table_print (t, out);
  }
  gpuprof_table_free (t);
}

/* the process's CPU: what the rows account for, the cores (sampler) */
static void
format_cpu (const GpuprofSnapshot * s, GString * out)
{
  if (!s->process_cpu_ns)
    return;
  g_string_append_printf (out, "CPU: the process used %.3f ms, %.1f %% of "
      "it on the rows above with an owner, %.3f ms not; %.2f of %.4g cores "
      "(limited by %s)%s; its threads waited %.3f ms for a core\n",
      s->process_cpu_ns / 1e6,
      100.0 * s->attributed_cpu_ns / s->process_cpu_ns,
      (s->process_cpu_ns - MIN (s->attributed_cpu_ns,
              s->process_cpu_ns)) / 1e6, s->cpu_used, s->cpu_available,
      s->cpu_limited_by ? s->cpu_limited_by : "?",
      s->cpu_throttled_ns ? ", throttled" : "", s->cpu_wait_core_ns / 1e6);
  if (s->cpu_throttled_ns)
    g_string_append_printf (out, "  throttled by its cgroup's quota for "
        "%.3f ms\n", s->cpu_throttled_ns / 1e6);
}

static void
format_threads (const GpuprofSnapshot * s, GString * out)
{
  static const gchar *const headers[] = {
    "thread", "wall ms", "work ms", "occupied %", "cpu ms", "core wait ms",
    "off cpu ms", "top element", "owner", "kind", NULL
  };
  GpuprofTable *t = gpuprof_table_new (10, headers);
  guint i;

  for (i = 0; i < s->threads->len; i++) {
    const GpuprofThreadRow *r =
        &g_array_index (s->threads, GpuprofThreadRow, i);
    gchar *cells[] = {
      g_strdup (r->name), ms (r->wall_ns), ms (r->busy_ns),
      pct (r->wall_ns ? (gdouble) r->busy_ns / r->wall_ns : 0.0),
      ms (r->cpu_ns), ms (r->run_delay_ns), ms (r->off_cpu_ns),
      g_strdup (r->top_element), g_strdup (r->owner ? r->owner : ""),
      g_strdup (r->kind ? r->kind : ""), NULL
    };
    add_owned_row (t, cells);
  }
  g_string_append (out, "\nThreads\n");
  gpuprof_table_print (t, out);
  gpuprof_table_free (t);
  format_cpu (s, out);
}

static gchar *
frames_cell (gdouble v)
{
  return g_strdup_printf ("%.2f", v);
}

/* "-" where the aggregator has no batch-size: fill and reasons unknown */
static gchar *
if_sized (const GpuprofBatchRow * r, gchar * cell)
{
  if (r->batch_size)
    return cell;
  g_free (cell);
  return g_strdup ("-");
}

static void
format_aggregators (const GpuprofSnapshot * s, GString * out)
{
  static const gchar *const headers[] = {
    "aggregator", "batches", "frames/batch", "p99", "batch-size", "fill %",
    "inputs", "inputs/batch", "wait p50 ms", "wait p99 ms", "full",
    "timeout", "eos", "interval ms", "latency p50 ms", "latency p99 ms", NULL
  };
  GpuprofTable *t = gpuprof_table_new (16, headers);
  guint i;

  for (i = 0; i < s->batches->len; i++) {
    const GpuprofBatchRow *r = &g_array_index (s->batches, GpuprofBatchRow, i);
    gchar *cells[] = {
      g_strdup (r->path), u64 (r->batches), frames_cell (r->frames_mean),
      u64 (r->frames_p99), if_sized (r, u64 (r->batch_size)),
      if_sized (r, pct (r->fill)), u64 (r->inputs),
      frames_cell (r->inputs_mean), ms (r->wait_p50_ns), ms (r->wait_p99_ns),
      if_sized (r, u64 (r->full)), if_sized (r, u64 (r->timeout)),
      if_sized (r, u64 (r->eos)), ms (r->interval_ns),
      r->latency_p50_ns ? ms (r->latency_p50_ns) : g_strdup ("-"),
      r->latency_p99_ns ? ms (r->latency_p99_ns) : g_strdup ("-"), NULL
    };
    add_owned_row (t, cells);
  }
  g_string_append (out, "\nBatches (per aggregator: frames per batch, fill = "
      "frames / batch-size, wait = first input -> push, latency = push -> "
      "sink)\n");
  gpuprof_table_print (t, out);
  gpuprof_table_free (t);
}

static void
format_stages (const GpuprofSnapshot * s, GString * out)
{
  static const gchar *const headers[] = {
    "stage", "of", "thread", "batches", "ms/batch", "µs/frame",
    "GPU ms/batch", "util %", NULL
  };
  GpuprofTable *t = gpuprof_table_new (8, headers);
  guint i;

  for (i = 0; i < s->stages->len; i++) {
    const GpuprofStageRow *r = &g_array_index (s->stages, GpuprofStageRow, i);
    gchar *cells[] = {
      g_strdup_printf ("%s%s%s", r->path, r->waits_on_clock ? " (clock)" : "",
          r->limiting ? " *" : ""), g_strdup (r->aggregator),
      g_strdup (r->thread), u64 (r->batches), ms (r->ns_per_batch),
      us (r->ns_per_frame), r->gpu_ns ? ms (r->gpu_ns_per_batch) :
      g_strdup ("-"), pct (r->util), NULL
    };
    add_owned_row (t, cells);
  }
  g_string_append (out, "\nBatch stages (self time per batch and per frame; "
      "util = busy share of the time from its first batch's push to the end of its last; * = limits "
      "throughput)\n");
  gpuprof_table_print (t, out);
  gpuprof_table_free (t);
}

static void
format_batches (const GpuprofSnapshot * s, GString * out)
{
  if (s->batches && s->batches->len)
    format_aggregators (s, out);
  if (s->stages && s->stages->len)
    format_stages (s, out);
}

/* per source: a few streams, or hundreds of cameras; one line each */
static void
format_streams (const GpuprofSnapshot * s, GString * out)
{
  static const gchar *const headers[] = {
    "source_id", "source", "mux input", "frames", "fps", "delivered",
    "drops", "latency p50 ms", "latency p99 ms", NULL
  };
  GpuprofTable *t;
  guint i;

  if (!s->streams || !s->streams->len)
    return;
  t = gpuprof_table_new (9, headers);
  for (i = 0; i < s->streams->len; i++) {
    const GpuprofStreamRow *r =
        &g_array_index (s->streams, GpuprofStreamRow, i);
    gchar *cells[] = {
      u64 (r->source_id), g_strdup (r->source),
      g_strdup (r->mux_pad && *r->mux_pad ? r->mux_pad : "-"),
      u64 (r->frames), frames_cell (r->fps), u64 (r->delivered),
      u64 (r->drops),
      r->delivered ? ms (r->latency_p50_ns) : g_strdup ("-"),
      r->delivered ? ms (r->latency_p99_ns) : g_strdup ("-"), NULL
    };
    add_owned_row (t, cells);
  }
  g_string_append (out, "\nStreams (per source: fps over its own active "
      "time, latency = source push -> sink, drops = frames that reached no "
      "sink)\n");
  gpuprof_table_print (t, out);
  gpuprof_table_free (t);
}

/* the shared resources the samplers read (the CPUs, GPU engines) */
static void
format_resources (const GpuprofSnapshot * s, GString * out)
{
  static const gchar *const headers[] = {
    "resource", "kind", "util %", "peak %", "saturated %", "samples",
    "detail", NULL
  };
  GpuprofTable *t;
  guint i;

  if (!s->resources || !s->resources->len)
    return;
  t = gpuprof_table_new (7, headers);
  for (i = 0; i < s->resources->len; i++) {
    const GpuprofResourceRow *r =
        &g_array_index (s->resources, GpuprofResourceRow, i);
    gchar *cells[] = {
      g_strdup (r->name), g_strdup (r->kind), pct (r->utilisation),
      pct (r->peak), pct (r->saturated), u64 (r->samples),
      g_strdup (r->detail), NULL
    };
    add_owned_row (t, cells);
  }
  g_string_append (out, "\nResources (util = mean over the run; saturated = "
      "share of samples at the kind's threshold)\n");
  gpuprof_table_print (t, out);
  gpuprof_table_free (t);
}

/* the ranked verdict: what limits, then the candidates behind it */
static void
format_limits (const GpuprofSnapshot * s, GString * out)
{
  static const gchar *const headers[] = {
    "rank", "kind", "what", "util %", "headroom", "rate/s", "evidence", NULL
  };
  GpuprofTable *t;
  guint i;

  if (!s->limits || !s->limits->len)
    return;
  t = gpuprof_table_new (7, headers);
  for (i = 0; i < s->limits->len; i++) {
    const GpuprofLimitRow *r = &g_array_index (s->limits, GpuprofLimitRow, i);
    gchar *cells[] = {
      u64 (r->rank), g_strdup (r->kind), g_strdup (r->what),
      pct (r->utilisation),
      r->headroom > 0 ? g_strdup_printf ("%.2fx", r->headroom) :
      g_strdup ("-"),
      r->rate > 0 ? g_strdup_printf ("%.1f", r->rate) : g_strdup ("-"),
      g_strdup (r->evidence), NULL
    };
    add_owned_row (t, cells);
  }
  g_string_append (out, "\nWhat limits (rank 1 limits the run; headroom = "
      "how much faster it could go before this one limits)\n");
  gpuprof_table_print (t, out);
  gpuprof_table_free (t);
}

/* Elements that left the pipeline while it ran (cameras a service took
 * out): one line, and their figures folded per factory, however many */
static void
format_removed (const GpuprofSnapshot * s, GString * out)
{
  static const gchar *const headers[] = {
    "factory", "role", "removed", "buf in", "buf out", "self ms", "frames",
    "delivered", "drops", "last removed", NULL
  };
  GpuprofTable *t;
  guint64 n = 0, sources = 0;
  guint i;

  if (!s->removed || !s->removed->len)
    return;
  t = gpuprof_table_new (10, headers);
  for (i = 0; i < s->removed->len; i++) {
    const GpuprofRemovedRow *r =
        &g_array_index (s->removed, GpuprofRemovedRow, i);
    gchar *cells[] = {
      g_strdup (r->factory), g_strdup (r->role), u64 (r->elements),
      u64 (r->buffers_in), u64 (r->buffers_out), ms (r->self_ns),
      u64 (r->frames), u64 (r->delivered), u64 (r->drops), g_strdup (r->last),
      NULL
    };
    add_owned_row (t, cells);
    n += r->elements;
    if (!g_strcmp0 (r->role, "source"))
      sources += r->elements;
  }
  g_string_append_printf (out, "\nRemoved during the run: %" G_GUINT64_FORMAT
      " element%s (%" G_GUINT64_FORMAT " source%s) left the pipeline while it "
      "ran; their figures are folded here per factory, in no table above\n",
      n, n == 1 ? "" : "s", sources, sources == 1 ? "" : "s");
  gpuprof_table_print (t, out);
  gpuprof_table_free (t);
}

/* Buffer pools (GStreamer >= 1.28's pool hooks): who acquires, what is
 * out, how long none was free */
static void
format_pools (const GpuprofSnapshot * s, GString * out)
{
  static const gchar *const headers[] = {
    "pool", "acquired by", "acquired", "buffers", "out", "out max", "max",
    "empty", "empty ms", "longest ms", NULL
  };
  GpuprofTable *t;
  guint i;

  if (!s->pools || !s->pools->len)
    return;
  t = gpuprof_table_new (10, headers);
  for (i = 0; i < s->pools->len; i++) {
    const GpuprofPoolRow *r = &g_array_index (s->pools, GpuprofPoolRow, i);
    gchar *cells[] = {
      r->pools > 1 ? g_strdup_printf ("%s x%" G_GUINT64_FORMAT, r->pool,
          r->pools) : g_strdup (r->pool),
      g_strdup (r->element && *r->element ? r->element : "-"),
      u64 (r->acquired), u64 (r->buffers), u64 (r->outstanding),
      u64 (r->outstanding_max),
      r->max_buffers ? u64 (r->max_buffers) : g_strdup ("-"),
      /* no maximum: an empty list costs an allocation, never a wait */
      r->max_buffers ? u64 (r->empties) : g_strdup ("-"),
      r->max_buffers ? ms (r->empty_ns) : g_strdup ("-"),
      r->max_buffers ? ms (r->empty_max_ns) : g_strdup ("-"), NULL
    };
    add_owned_row (t, cells);
  }
  g_string_append (out, "\nBuffer pools (empty: every buffer out, so an "
      "acquire waits for a release; shown for pools with a maximum)\n");
  gpuprof_table_print (t, out);
  gpuprof_table_free (t);
  /* a pool at its maximum with nothing free: its element waited there */
  for (i = 0; i < s->pools->len; i++) {
    const GpuprofPoolRow *r = &g_array_index (s->pools, GpuprofPoolRow, i);
    if (r->pools != 1 || !r->max_buffers || r->buffers < r->max_buffers
        || !r->empty_ns || !r->element || !*r->element)
      continue;
    g_string_append_printf (out, "  %s: all %" G_GUINT64_FORMAT " buffers "
        "of %s were out for %.1f ms", r->element, r->max_buffers, r->pool,
        r->empty_ns / 1e6);
    if (s->wall_ns)
      g_string_append_printf (out, " (%.0f %% of the run)",
          100.0 * MIN (r->empty_ns, s->wall_ns) / s->wall_ns);
    g_string_append (out, ": its acquires waited for buffers to come back "
        "in that time (at most); downstream holds them\n");
  }
}

/* The per-batch verdict and the advice, under the bottleneck line. */
static void
format_advice (const GpuprofSnapshot * s, GString * out)
{
  const GpuprofStageRow *lim = gpuprof_advice_limiting (s);
  const GpuprofBatchRow *agg;
  guint i;

  if (lim && (agg = gpuprof_snapshot_find_batch (s, lim->aggregator))) {
    g_string_append_printf (out, "limiting stage: %s — busy %.0f%% of the "
        "time it had batches (%.3f ms per batch, a batch every %.3f ms; thread "
        "%s %.0f%%)%s\n", lim->path, lim->util * 100, lim->ns_per_batch / 1e6,
        agg->interval_ns / 1e6, lim->thread,
        gpuprof_advice_thread_util (s, lim) * 100,
        gpuprof_advice_is_saturated (s, lim) ? "" :
        "; not saturated: the inputs may limit");
  }
  for (i = 0; s->advice && i < s->advice->len; i++) {
    const GpuprofAdviceRow *a = &g_array_index (s->advice, GpuprofAdviceRow,
        i);
    g_string_append_printf (out, "advice: %s: %s — %s\n", a->stage,
        a->setting, a->reason);
  }
}

#define MS(ns) ((ns) / 1e6)

/* @wait: with the GPU wait column (some thread waited) */
static void
format_gpu_element (const GpuprofGpuElementRow * r, gboolean wait,
    GString * out)
{
  g_string_append_printf (out, "  %-40s %10.3f %10.3f %10.3f %10.3f %8"
      G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT " %10.2f", r->path,
      MS (r->gpu_ns), MS (r->kernel_ns), MS (r->copy_ns), MS (r->memset_ns),
      r->kernels, r->copies,
      (r->copy_bytes + r->memset_bytes) / (1024.0 * 1024.0));
  if (r->buffers)
    g_string_append_printf (out, " %8" G_GUINT64_FORMAT " %10.1f",
        r->buffers, r->gpu_ns / 1e3 / r->buffers);
  else
    g_string_append_printf (out, " %8s %10s", "-", "-");
  if (wait)
    g_string_append_printf (out, " %11.3f", MS (r->wait_ns));
  g_string_append_c (out, '\n');
}

static void
format_gpu_kernels (const GpuprofSnapshot * s, GString * out)
{
  guint i;

  if (!s->gpu_kernels->len)
    return;
  g_string_append_printf (out, "  %-50s %-30s %8s %10s %10s\n", "top kernels",
      "element", "calls", "total ms", "mean us");
  for (i = 0; i < s->gpu_kernels->len; i++) {
    const GpuprofGpuKernelRow *k =
        &g_array_index (s->gpu_kernels, GpuprofGpuKernelRow, i);

    g_string_append_printf (out, "  %-50.50s %-30.30s %8" G_GUINT64_FORMAT
        " %10.3f %10.1f\n", k->name, k->element, k->calls, MS (k->ns),
        k->calls ? k->ns / 1e3 / k->calls : 0.0);
  }
}

static void
format_gpu_devices (const GpuprofSnapshot * s, GString * out)
{
  guint i;

  if (!s->gpu_devices->len)
    return;
  g_string_append_printf (out, "  %-8s %7s %10s %10s  %s\n", "device",
      "busy %", "busy ms", "span ms", "longest idle gaps (ms)");
  for (i = 0; i < s->gpu_devices->len; i++) {
    const GpuprofGpuDeviceRow *d =
        &g_array_index (s->gpu_devices, GpuprofGpuDeviceRow, i);
    const guint64 gaps[] = { d->gap1_ns, d->gap2_ns, d->gap3_ns, d->gap4_ns,
      d->gap5_ns
    };
    guint g;

    g_string_append_printf (out, "  %-8" G_GUINT64_FORMAT " %7.1f %10.3f "
        "%10.3f ", d->device, 100.0 * d->busy, MS (d->busy_ns),
        MS (d->span_ns));
    for (g = 0; g < MIN (d->gaps, G_N_ELEMENTS (gaps)); g++)
      g_string_append_printf (out, " %.3f", MS (gaps[g]));
    g_string_append_c (out, '\n');
  }
}

/* how work launched inside an element's call was found, per collection
 * path: the callback path reads the thread's call at launch, the activity
 * path joins external correlation records */
static const gchar *
gpu_call_source (const gchar * path)
{
  if (!g_strcmp0 (path, "callback"))
    return "in calls at launch";
  if (!g_strcmp0 (path, "activity"))
    return "by external id";
  return "in calls";            /* a summary saved before the column */
}

/* The GPU (CUPTI) section: per element, unattributed per thread, totals
 * with the attribution check, top kernels, devices. */
static void
format_gpu (const GpuprofSnapshot * s, GString * out)
{
  const GpuprofGpuRow *t = &g_array_index (s->gpu, GpuprofGpuRow, 0);
  gboolean wait = FALSE;
  guint i;

  g_string_append_printf (out, "\nGPU (CUPTI): %" G_GUINT64_FORMAT
      " records, %" G_GUINT64_FORMAT " dropped by CUPTI, %" G_GUINT64_FORMAT
      " settled without their API record, %" G_GUINT64_FORMAT
      " still pending\n", t->records, t->dropped, t->unjoined, t->pending);
  for (i = 0; i < s->gpu_elements->len && !wait; i++)
    wait = g_array_index (s->gpu_elements, GpuprofGpuElementRow, i).wait_ns;
  g_string_append_printf (out, "  %-40s %10s %10s %10s %10s %8s %7s %10s %8s "
      "%10s%s\n", "element", "GPU ms", "kernel ms", "copy ms", "memset ms",
      "kernels", "copies", "MiB", "buffers", "us/buffer",
      wait ? " GPU wait ms" : "");
  for (i = 0; i < s->gpu_elements->len; i++)
    format_gpu_element (&g_array_index (s->gpu_elements, GpuprofGpuElementRow,
            i), wait, out);
  g_string_append_printf (out, "  %-40s %10.3f   = %.3f %s + %.3f "
      "by thread + %.3f unattributed\n", "total", MS (t->total_ns),
      MS (t->external_ns), gpu_call_source (t->path), MS (t->thread_ns),
      MS (t->unattributed_ns));
  format_gpu_kernels (s, out);
  if (t->ncu && *t->ncu)
    g_string_append_printf (out, "  Nsight Compute, the top kernels of the "
        "stage with the most kernel time:\n    %s\n", t->ncu);
  format_gpu_devices (s, out);
}

/* "0.5 s" / "250 ms" */
static gchar *
period_text (guint64 ns)
{
  return ns >= 1000000000 ? g_strdup_printf ("%.1f s", ns / 1e9) :
      g_strdup_printf ("%.0f ms", ns / 1e6);
}

/* a GPU's row of the resources table; "-" where NVML gave nothing */
static void
add_gpu_resource_row (GpuprofTable * t, const GpuprofGpuResourceRow * r)
{
  gchar *cells[] = {
    g_strdup (r->name), u64 (r->readings), pct (r->sm), pct (r->sm_peak),
    pct (r->mem), pct (r->dec), pct (r->dec_peak), pct (r->dec_saturated),
    pct (r->enc), r->clock_max_mhz ? g_strdup_printf ("%.0f/%" G_GUINT64_FORMAT,
        r->clock_mhz, r->clock_max_mhz) : g_strdup ("-"), pct (r->throttled),
    r->mem_total ? g_strdup_printf ("%.0f/%.0f", r->mem_used_peak / 1048576.0,
        r->mem_total / 1048576.0) : g_strdup ("-"),
    r->self_known ? pct (r->self_sm) : g_strdup ("-"),
    r->self_known ? pct (r->self_dec) : g_strdup ("-"), NULL
  };

  add_owned_row (t, cells);
}

/* The GPU's engines from NVML over the run (gpu_resources) */
static void
format_gpu_resources (const GpuprofSnapshot * s, GString * out)
{
  static const gchar *const headers[] = {
    "GPU", "readings", "SM %", "SM peak %", "mem %", "NVDEC %",
    "NVDEC peak %", "NVDEC >=90 %", "NVENC %", "SM MHz/max", "throttled %",
    "mem used/total MiB", "ours SM %", "ours NVDEC %", NULL
  };
  const GpuprofGpuResourceRow *first;
  GpuprofTable *t;
  gchar *period;
  guint i;

  if (!s->gpu_resources || !s->gpu_resources->len)
    return;
  first = &g_array_index (s->gpu_resources, GpuprofGpuResourceRow, 0);
  period = period_text (first->read_period_ns);
  t = gpuprof_table_new (14, headers);
  for (i = 0; i < s->gpu_resources->len; i++)
    add_gpu_resource_row (t, &g_array_index (s->gpu_resources,
            GpuprofGpuResourceRow, i));
  g_string_append_printf (out, "\nGPU resources (NVML, read every %s, "
      "%.2f ms CPU a reading; %% of NVML's sample period an engine was busy, "
      "mean over the run; ours = this process's share of that time)\n",
      period, first->read_cpu_ns / 1e6);
  gpuprof_table_print (t, out);
  gpuprof_table_free (t);
  g_free (period);
  for (i = 0; i < s->gpu_resources->len; i++) {
    const GpuprofGpuResourceRow *r = &g_array_index (s->gpu_resources,
        GpuprofGpuResourceRow, i);

    g_string_append_printf (out, "  %s: used by the pipeline as %s; clock "
        "event reasons: %s%s%s\n", r->name, r->used_by,
        r->reasons && *r->reasons ? r->reasons : "none",
        r->missing && *r->missing ? "; this driver's NVML lacks " : "",
        r->missing && *r->missing ? r->missing : "");
  }
}

/* The GPU's engines in the verdict: what binds (decode-, encode-,
 * compute-, copy-bound, throttled) with its advice, where the limit and
 * next lines do not name it already (the ranked verdict holds the GPU's
 * candidates: gpuprof-gpu-limits.c), else the busiest engine */
static void
format_gpu_verdict (const GpuprofSnapshot * s, GString * out)
{
  GArray *c = gpuprof_gpu_verdict_candidates (s);
  const GpuprofGpuCandidate *bound = gpuprof_gpu_verdict_bound (c);
  gboolean named = bound && (!g_strcmp0 (bound->what, s->limit_what)
      || !g_strcmp0 (bound->what, s->next_what));

  if (bound && !named)
    g_string_append_printf (out, "gpu: %s — %s\nadvice: %s: %s\n",
        bound->what, bound->evidence, bound->what, bound->advice);
  else if (!bound && c->len)
    g_string_append_printf (out, "gpu: not limiting — %s: %s\n",
        g_array_index (c, GpuprofGpuCandidate, 0).what,
        g_array_index (c, GpuprofGpuCandidate, 0).evidence);
  g_array_unref (c);
}

/* the busiest stage (run.bottleneck), told where the limit lines do not
 * name it already */
static void
append_busiest (const GpuprofSnapshot * s, GString * out)
{
  gdouble per = s->bottleneck_ns_per_buffer;

  if (!s->bottleneck || !g_strcmp0 (s->bottleneck, s->limit_what)
      || !g_strcmp0 (s->bottleneck, s->next_what))
    return;
  g_string_append_printf (out, "\nbusiest stage: %s — %.0f%% occupied on thread "
      "%s, %.*f ms/buffer", s->bottleneck, s->bottleneck_busy * 100.0,
      s->bottleneck_thread && *s->bottleneck_thread ?
      s->bottleneck_thread : "?", per < 1e5 ? 4 : 2, per / 1e6);
}

/* The verdict: what limits the run (rank 1 of the limits table) with its
 * evidence and advice, the runner-up, the drops, the busiest stage */
gchar *
gpuprof_report_verdict (const GpuprofSnapshot * s)
{
  const GpuprofLimitRow *first = s->limits && s->limits->len ?
      &g_array_index (s->limits, GpuprofLimitRow, 0) : NULL;
  const GpuprofLimitRow *next = s->limits && s->limits->len > 1 ?
      &g_array_index (s->limits, GpuprofLimitRow, 1) : NULL;
  GString *out = g_string_new (NULL);

  if (!first) {
    g_string_append (out, "limit: none found (no element did measurable "
        "work)");
    return g_string_free (out, FALSE);
  }
  g_string_append_printf (out, "limit: %s %s — %s", first->kind, first->what,
      first->evidence);
  if (first->advice && *first->advice)
    g_string_append_printf (out, "\n  %s", first->advice);
  if (next)
    g_string_append_printf (out, "\nnext: %s %s — %s", next->kind,
        next->what, next->evidence);
  if (s->drops)
    g_string_append_printf (out, "\ndrops: %" G_GUINT64_FORMAT " buffers "
        "dropped by leaky queues, most at %s", s->drops,
        s->drops_where ? s->drops_where : "?");
  append_busiest (s, out);
  return g_string_free (out, FALSE);
}

gchar *
gpuprof_report_format (const GpuprofSnapshot * s)
{
  GString *out = g_string_new (NULL);
  gchar *verdict = gpuprof_report_verdict (s);

  g_string_append_printf (out, "\n=== gpuprof report: %s (wall %.3f s) ===\n",
      s->pipeline, s->wall_ns / 1e9);
  if (s->checkpoint)
    g_string_append_printf (out, "Checkpoint taken at %s: the run up to "
        "then; it had not ended (the process was stopped, or still runs)\n",
        s->taken_utc ? s->taken_utc : "?");
  format_window (s, out);
  format_elements (s, out);
  format_queues (s, out);
  format_async (s, out);
  format_threads (s, out);
  format_batches (s, out);
  format_streams (s, out);
  format_resources (s, out);
  format_gpu_resources (s, out);
  format_limits (s, out);
  format_removed (s, out);
  format_pools (s, out);
  if (s->tracer_overhead_samples)
    g_string_append_printf (out, "\ngpuprof's own hooks: ~%.1f ms "
        "(estimated from %" G_GUINT64_FORMAT " sampled pushes)\n",
        s->tracer_overhead_ns / 1e6, s->tracer_overhead_samples);
  g_string_append_printf (out, "\n%s\n", verdict);
  format_gpu_verdict (s, out);
  format_advice (s, out);
  g_free (verdict);
  if (s->gpu && s->gpu->len)
    format_gpu (s, out);
  return g_string_free (out, FALSE);
}
