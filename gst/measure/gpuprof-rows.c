/* gpuprof: a pipeline's run as the snapshot's rows — elements, queues and
 * threads here, batches and streams by their modules (gpuprof-batch.c,
 * gpuprof-streams.c), links, advice and the verdict by the snapshot's
 * (gst/snapshot/). See gpuprof_measure_snapshot() in gpuprof-measure.h. */
#include "gpuprof-measure.h"

#include "gpuprof-advice.h"
#include "gpuprof-async.h"
#include "gpuprof-clock.h"
#include "gpuprof-cpu-sampler.h"
#include "gpuprof-gpu.h"
#include "gpuprof-links.h"
#include "gpuprof-owners.h"
#include "gpuprof-queue.h"
#include "gpuprof-removed.h"
#include "gpuprof-stats.h"
#include "gpuprof-thread.h"
#include "gpuprof-workers.h"

/* An asynchronous element's work includes its workers' CPU; its busiest
 * thread may be a worker, which runs no hook */
static void
fill_async_row (GpuprofElementRow * row, GpuprofAsync * a)
{
  GpuprofAsyncFigures f;

  gpuprof_async_figures (a, &f);
  row->async = TRUE;
  row->worker_ns = f.worker_ns;
  row->self_ns += f.worker_ns;
  row->residency_p50_ns = f.residency_p50;
  row->residency_p99_ns = f.residency_p99;
  row->residency_mean_ns = f.residency_mean;
  row->in_flight_mean = f.in_flight_mean;
  row->in_flight_max = f.in_flight_max;
  if (f.worker_top_ns > row->thread_self_ns && f.span_ns) {
    g_free (row->thread);
    row->thread = g_strdup (f.worker_name);
    row->thread_self_ns = f.worker_top_ns;
    row->thread_wall_ns = f.span_ns;
    row->busy = (gdouble) f.worker_top_ns / f.span_ns;
  }
}

/* busy in the steady state: start-up is no part of it. Its self time
 * comes off the thread's (when it ran there, or before the window), and
 * the first call's wall time off the thread's wall (inside a window the
 * wall starts at its opening already) */
static gdouble
steady_busy (const GpuprofElementStats * s, const GpuprofThread * t,
    guint64 self, guint64 wall)
{
  guint64 open_ts, close_ts, first = 0, first_wall = 0;

  gpuprof_stats_window_edges (&open_ts, &close_ts);
  if (open_ts || __atomic_load_n (&s->first_thread, __ATOMIC_ACQUIRE) == t)
    first = __atomic_load_n (&s->first_ns, __ATOMIC_RELAXED);
  if (!open_ts && __atomic_load_n (&s->first_thread, __ATOMIC_ACQUIRE) == t)
    first_wall = s->first_incl_ns;
  self -= MIN (first, self);
  wall -= MIN (first_wall, wall);
  return wall ? (gdouble) self / wall : 0.0;
}

/* The sampler's busy (CPU over its thread's wall) in the steady state as
 * the hooks' is: start-up apart. Its first call's CPU is not read apart
 * (the sampler runs at 10 Hz): it is taken in the share its self time has
 * of the element's work on the thread, and the call's time comes off the
 * wall */
static void
steady_cpu_busy (GpuprofSnapshot * snap)
{
  guint i;

  for (i = 0; i < snap->elements->len; i++) {
    GpuprofElementRow *r = &g_array_index (snap->elements,
        GpuprofElementRow, i);
    guint64 first = r->first_ns;

    if (!first || first > r->thread_self_ns
        || first >= r->thread_wall_ns)
      continue;
    r->busy = MIN (1.0, r->busy * r->thread_wall_ns *
        (r->thread_self_ns - first) / r->thread_self_ns /
        (r->thread_wall_ns - first));
  }
}

/* Waiting on the GPU is not work: the self time of the calls it happened
 * in (wall clock) loses it, and so does its main thread's, for what waited
 * there; the percentiles keep it. Waits on its own threads outside calls
 * are not in self time (worker time is on the thread CPU clock). */
static void
fill_gpu_wait (GpuprofElementRow * row, GpuprofElement * e,
    const GpuprofThreadSlot * slot)
{
  GpuprofGpuWait w;

  gpuprof_gpu_get_wait (GPUPROF_GPU_CHANNEL_TRACER, e->id,
      slot ? (guint32) slot->thread->tid : 0, &w);
  row->gpu_wait_ns = w.wait_ns;
  /* a call read on the CPU clock (it syncs) had its GPU waits off the
   * CPU, in its clock wait already */
  if (row->clock_wait_ns) {
    row->clock_wait_ns -= MIN (w.in_call_ns, row->clock_wait_ns);
    return;
  }
  row->self_ns -= MIN (w.in_call_ns, row->self_ns);
  row->thread_self_ns -= MIN (w.in_call_tid_ns, row->thread_self_ns);
  row->busy = slot ? steady_busy (e->stats, slot->thread,
      row->thread_self_ns, row->thread_wall_ns) : 0.0;
}

static void
fill_element_row (GpuprofMeasure * m, GpuprofElementRow * row,
    GpuprofElement * e)
{
  const GpuprofElementStats *s = e->stats;
  const GpuprofThreadSlot *slot = gpuprof_stats_main_slot (s);

  row->path = g_strdup (e->path);
  row->factory = g_strdup (e->factory);
  row->role = g_strdup (gpuprof_role_name (e->role));
  gpuprof_measure_buffer_counts (m, e, &row->buffers_in, &row->buffers_out);
  row->calls = gpuprof_stats_calls (s);
  row->self_ns = gpuprof_stats_self_ns (s);
  row->incl_ns = s->incl_ns;
  row->self_p50_ns = gpuprof_histogram_percentile (&s->self_hist, 0.50);
  row->self_p95_ns = gpuprof_histogram_percentile (&s->self_hist, 0.95);
  row->self_p99_ns = gpuprof_histogram_percentile (&s->self_hist, 0.99);
  row->self_max_ns = s->self_hist.max;
  row->first_ns = __atomic_load_n (&s->first_ns, __ATOMIC_RELAXED);
  row->first_calls = __atomic_load_n (&s->first_calls, __ATOMIC_RELAXED);
  row->waits_on_clock = e->waits_on_clock;
  row->blocked_ns = s->blocked_ns;
  row->wait_input_ns = __atomic_load_n (&s->wait_input_ns, __ATOMIC_RELAXED);
  row->clock_wait_ns = __atomic_load_n (&s->clock_wait_ns, __ATOMIC_RELAXED);
  if (slot) {
    GpuprofThread *t = slot->thread;
    guint64 first = __atomic_load_n (&t->first_ts, __ATOMIC_RELAXED);
    guint64 last = __atomic_load_n (&t->last_ts, __ATOMIC_RELAXED);
    row->thread = gpuprof_thread_dup_name (t);
    row->thread_self_ns = slot->self_ns;
    gpuprof_stats_window_clamp (&first, &last);
    row->thread_wall_ns = last > first ? last - first : 0;
    row->busy = steady_busy (s, t, row->thread_self_ns, row->thread_wall_ns);
  } else {
    row->thread = g_strdup ("");
  }
  if (m->gpu_on)
    fill_gpu_wait (row, e, slot);
  if (G_UNLIKELY (e->async) && gpuprof_async_confirmed (e->async))
    fill_async_row (row, e->async);
}

static void
fill_queue_row (GpuprofQueueRow * row, GpuprofQueue * q)
{
  GpuprofQueueFigures f;

  gpuprof_queue_figures (q, &f);
  row->path = gpuprof_queue_dup_path (q);
  row->buffers = f.dequeued;
  row->residency_p50_ns = f.residency_p50;
  row->residency_p99_ns = f.residency_p99;
  row->residency_max_ns = f.residency_max;
  row->residency_mean_ns = f.residency_mean;
  row->max_level_buffers = f.max_level_buffers;
  row->max_level_bytes = f.max_level_bytes;
  row->max_level_time_ns = f.max_level_time;
  row->level_buffers = f.level_buffers;
  row->level_bytes = f.level_bytes;
  row->drops = f.drops;
  row->flushed = f.flushed;
  row->left = f.left;
  row->backpressure_ns = f.backpressure_ns;
  row->upstream_wall_ns = f.upstream_wall_ns;
}

/* A thread an element owns that runs none of its calls, read on its CPU
 * clock (gpuprof-workers.h) */
typedef struct
{
  GpuprofWorker w;
  const GpuprofElement *owner;
} OwnedWorker;

static gboolean is_owned_worker (GArray * workers, gint tid);

/* @e's threads listed in @ws into @out: those still its workers, once */
static void
add_owned (GArray * out, const GpuprofElement * e,
    const GpuprofWorker ws[GPUPROF_WORKERS_MAX], guint n)
{
  guint k;

  for (k = 0; k < n; k++) {
    OwnedWorker ow = { ws[k], e };
    GpuprofThreadKind kind;

    if (gpuprof_owners_lookup (ws[k].tid, &kind) == e->id
        && kind == GPUPROF_THREAD_KIND_WORKER
        && !is_owned_worker (out, ws[k].tid))
      g_array_append_val (out, ow);
  }
}

/* The worker threads of @elements: an asynchronous element's that never
 * pushed (those that push were dropped from its workers and have hook
 * records), then the threads other elements created (a sink's, a
 * source's). A thread seen appearing in a state change that turned out to
 * be a pad task (its stream-status came after) is a streaming thread, not
 * a worker */
static GArray *
owned_workers (GPtrArray * elements)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (OwnedWorker));
  GpuprofWorker ws[GPUPROF_WORKERS_MAX];
  guint i;

  for (i = 0; i < elements->len; i++) {
    GpuprofElement *e = g_ptr_array_index (elements, i);
    GpuprofAsync *a = __atomic_load_n (&e->async, __ATOMIC_ACQUIRE);
    GpuprofWorkers *own = __atomic_load_n (&e->workers, __ATOMIC_ACQUIRE);

    if (a)
      add_owned (out, e, ws, gpuprof_workers_list (gpuprof_async_get_workers (a), ws));
    if (own)
      add_owned (out, e, ws, gpuprof_workers_list (own, ws));
  }
  return out;
}

static gboolean
is_owned_worker (GArray * workers, gint tid)
{
  guint i;

  for (i = 0; i < workers->len; i++) {
    if (g_array_index (workers, OwnedWorker, i).w.tid == tid)
      return TRUE;
  }
  return FALSE;
}

/* A worker runs no element call: its work is its CPU time, the rest of
 * its wall time it waited (for input, on a lock, on the GPU) */
static void
add_worker_rows (GpuprofSnapshot * snap, GArray * workers)
{
  guint i;

  for (i = 0; i < workers->len; i++) {
    const OwnedWorker *ow = &g_array_index (workers, OwnedWorker, i);
    GpuprofThreadRow row = { 0 };

    row.name = g_strdup (ow->w.name[0] ? ow->w.name : "worker");
    row.tid = ow->w.tid;
    row.wall_ns = ow->w.last_ts > ow->w.first_ts ?
        ow->w.last_ts - ow->w.first_ts : 0;
    row.busy_ns = MIN (ow->w.cpu_ns, row.wall_ns);
    row.top_element = g_strdup (ow->owner->path);
    row.owner = g_strdup (ow->owner->path);
    row.kind = g_strdup (gpuprof_thread_kind_name
        (GPUPROF_THREAD_KIND_WORKER));
    g_array_append_val (snap->threads, row);
  }
}

static void
fill_thread_rows (GpuprofSnapshot * snap, GPtrArray * elements,
    guint32 pipeline_id, guint64 * wall_first, guint64 * wall_last)
{
  GPtrArray *threads = gpuprof_thread_list ();
  GArray *workers = owned_workers (elements);
  guint i, j, k;

  for (i = 0; i < threads->len; i++) {
    GpuprofThread *t = g_ptr_array_index (threads, i);
    guint64 first = __atomic_load_n (&t->first_ts, __ATOMIC_RELAXED);
    guint64 last = __atomic_load_n (&t->last_ts, __ATOMIC_RELAXED);
    GpuprofThreadRow row = { 0 };
    guint64 top_ns = 0;
    GpuprofElement *top = NULL;
    GpuprofThreadKind kind;
    guint32 owner_id;
    guint64 in_call_wait;

    if (!first || t->pipeline_id != pipeline_id)
      continue;
    /* the sampled hook time, scaled in snapshot_pipeline_wall */
    snap->tracer_overhead_ns += __atomic_load_n (&t->ovh_ns, __ATOMIC_RELAXED);
    snap->tracer_overhead_samples += __atomic_load_n (&t->ovh_samples,
        __ATOMIC_RELAXED);
    /* a worker that ran a hook (an event, a query) but never pushed: its
     * row is its worker's (add_worker_rows), on its CPU clock */
    if (is_owned_worker (workers, t->tid))
      continue;
    *wall_first = *wall_first ? MIN (*wall_first, first) : first;
    *wall_last = MAX (*wall_last, last);
    row.name = gpuprof_thread_dup_name (t);
    row.tid = t->tid;
    row.wall_ns = last > first ? last - first : 0;
    row.busy_ns = __atomic_load_n (&t->busy_ns, __ATOMIC_RELAXED);
    /* its GPU waits inside calls are in the elements' self time: not work
     * (fill_gpu_wait); 0 with GPU attribution off */
    gpuprof_gpu_get_thread_wait (GPUPROF_GPU_CHANNEL_TRACER, (guint32) t->tid,
        &in_call_wait);
    row.busy_ns -= MIN (in_call_wait, row.busy_ns);
    for (j = 0; j < elements->len; j++) {
      GpuprofElement *e = g_ptr_array_index (elements, j);
      for (k = 0; k < GPUPROF_THREAD_SLOTS; k++) {
        if (e->stats->slots[k].thread == t && e->stats->slots[k].self_ns > top_ns) {
          top_ns = e->stats->slots[k].self_ns;
          top = e;
        }
      }
    }
    row.top_element = g_strdup (top ? top->path : "");
    owner_id = gpuprof_owners_lookup_last (t->tid, &kind);
    top = NULL;
    for (j = 0; owner_id && j < elements->len && !top; j++) {
      GpuprofElement *e = g_ptr_array_index (elements, j);
      if (e->id == owner_id)
        top = e;
    }
    row.owner = g_strdup (top ? top->path : "");
    row.kind = g_strdup (gpuprof_thread_kind_name (kind));
    g_array_append_val (snap->threads, row);
  }
  g_ptr_array_unref (threads);
  add_worker_rows (snap, workers);
  g_array_unref (workers);
}

/* the hooks' own time: the mean sampled push times every push (the
 * buffers the elements pushed), gpuprof-overhead.h */
static void
scale_overhead (GpuprofSnapshot * snap)
{
  guint64 pushes = 0;
  guint i;

  for (i = 0; i < snap->elements->len; i++)
    pushes += g_array_index (snap->elements, GpuprofElementRow,
        i).buffers_out;
  snap->tracer_overhead_ns = snap->tracer_overhead_samples ?
      (guint64) ((gdouble) snap->tracer_overhead_ns * pushes /
      snap->tracer_overhead_samples) : 0;
}

/* what @e measured in @pl's run, which it left, into @pl's removed totals:
 * its row as the elements table would have it, its queues' drops, its
 * stream's frames */
static void
fold_element (GpuprofMeasure * m, GpuprofPipeline * pl, GpuprofElement * e)
{
  GpuprofElementRow er = { 0 };
  GpuprofRemovedRow r = { 0 };
  guint j;

  fill_element_row (m, &er, e);
  r.factory = er.factory;
  r.role = er.role;
  r.last = er.path;
  r.elements = 1;
  r.buffers_in = er.buffers_in;
  r.buffers_out = er.buffers_out;
  r.calls = er.calls;
  r.self_ns = er.self_ns;
  r.blocked_ns = er.blocked_ns;
  r.wait_input_ns = er.wait_input_ns;
  for (j = 0; e->queue && j < e->queue->fifos->len; j++) {
    GpuprofQueueFigures f;
    gpuprof_queue_figures (g_ptr_array_index (e->queue->fifos, j), &f);
    r.queue_drops += f.drops;
  }
  gpuprof_streams_fold (m->streams, e, &r);
  gpuprof_removed_add (m->removed, pl->id, &r);
  gpuprof_summary_row_clear (GPUPROF_SUMMARY_ELEMENTS, &er);
}

void
gpuprof_measure_fold (GpuprofMeasure * m, GpuprofPipeline * pl,
    GPtrArray * members)
{
  GPtrArray *left = g_ptr_array_new ();
  guint i;

  /* one hold of the registry lock: an element leaving meanwhile is a
   * member now or folded now, never both, never neither */
  gpuprof_objects_elements_of (m->objects, pl, members, left);
  for (i = 0; i < left->len; i++)
    fold_element (m, pl, g_ptr_array_index (left, i));
  g_ptr_array_unref (left);
}

GpuprofSnapshot *
gpuprof_measure_snapshot (GpuprofMeasure * m, GpuprofPipeline * pl,
    guint64 * wall_first, guint64 * wall_last)
{
  GpuprofSnapshot *snap = gpuprof_snapshot_new (pl->name);
  GPtrArray *mine = g_ptr_array_new ();
  GpuprofCpuSampler *cpu = __atomic_load_n (&m->cpu, __ATOMIC_ACQUIRE);
  guint64 first = 0, last = 0;
  guint i, j;

  gpuprof_objects_refresh_roles (m->objects);
  gpuprof_measure_fold (m, pl, mine);
  for (i = 0; i < mine->len; i++) {
    GpuprofElement *e = g_ptr_array_index (mine, i);
    if (gpuprof_measure_element_active (m, e)) {
      GpuprofElementRow row = { 0 };
      fill_element_row (m, &row, e);
      g_array_append_val (snap->elements, row);
      gpuprof_snapshot_add_histogram (snap, "element_self", e->path,
          &e->stats->self_hist, TRUE);
    }
    for (j = 0; e->queue && j < e->queue->fifos->len; j++) {
      GpuprofQueueRow row = { 0 };
      fill_queue_row (&row, g_ptr_array_index (e->queue->fifos, j));
      g_array_append_val (snap->queues, row);
    }
  }
  fill_thread_rows (snap, mine, pl->id, &first, &last);
  if (cpu) {
    gpuprof_cpu_sampler_fill (cpu, snap, pl, mine);
    steady_cpu_busy (snap);
  }
  scale_overhead (snap);
  gpuprof_links_fill (snap, m->objects, mine);
  gpuprof_batches_snapshot (m->batches, mine, snap);
  gpuprof_streams_snapshot (m->streams, m->objects, mine, snap);
  gpuprof_removed_copy (m->removed, pl->id, snap);
  gpuprof_advice_compute (snap);
  snap->wall_ns = last > first ? last - first : 0;
  gpuprof_snapshot_sort (snap);
  gpuprof_snapshot_compute_verdict (snap);
  gpuprof_snapshot_mark_taken (snap, gpuprof_clock_now ());
  g_ptr_array_unref (mine);
  if (wall_first)
    *wall_first = first;
  if (wall_last)
    *wall_last = last;
  return snap;
}

