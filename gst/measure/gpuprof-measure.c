/* gpuprof: the measurement state of a session (see gpuprof-measure.h). */
#include "gpuprof-measure.h"

#include "gpuprof-async.h"
#include "gpuprof-clock.h"
#include "gpuprof-gpu.h"
#include "gpuprof-nvtx.h"
#include "gpuprof-owners.h"
#include "gpuprof-queue.h"
#include "gpuprof-pools.h"
#include "gpuprof-removed.h"
#include "gpuprof-stats.h"
#include "gpuprof-thread.h"
#include "gpuprof-workers.h"

/* ------------------------------------------------- records' slots */

/* registry lock held: no hook can run into us here */
static void
element_init (GpuprofElement * e, gpointer user_data)
{
  GpuprofMeasure *m = user_data;

  e->stats = gpuprof_stats_new ();
  if (e->role == GPUPROF_ROLE_QUEUE)
    e->queue = gpuprof_queue_element_new (e);
  gpuprof_batches_element_init (m->batches, e);
  gpuprof_streams_element_init (m->streams, e);
  /* per-stream following costs ~140 instructions per pad crossed: paid
   * only where streams differ from the pipeline's own figures */
  if ((e->role == GPUPROF_ROLE_SOURCE
          && __atomic_add_fetch (&m->n_sources, 1, __ATOMIC_RELAXED) >= 2)
      || e->role == GPUPROF_ROLE_AGGREGATOR)
    __atomic_store_n (&m->streams_on, TRUE, __ATOMIC_RELAXED);
  /* NVTX rows are named by the path in the pipeline: an element with none
   * yet gets its domain when it has one (element_resolved) */
  if (m->nvtx && e->pipeline)
    gpuprof_nvtx_element_init (e);
}

static void
pad_init (GpuprofPad * pad, gpointer user_data)
{
  GpuprofMeasure *m = user_data;

  if (pad->element->queue)
    pad->queue = gpuprof_queue_for_pad (pad->element, pad->name);
  if (m->nvtx)
    gpuprof_nvtx_pad_init (pad);
}

/* registry lock held: the element seen before it had a pipeline has one */
static void
element_resolved (GpuprofElement * e, gpointer user_data)
{
  GpuprofMeasure *m = user_data;
  guint i;

  if (!m->nvtx || e->nvtx_domain)
    return;
  gpuprof_nvtx_element_init (e);
  for (i = 0; i < e->pads->len; i++)
    gpuprof_nvtx_pad_init (g_ptr_array_index (e->pads, i));
}

static gboolean
element_pending (GpuprofElement * e, gpointer user_data)
{
  return gpuprof_stats_pending (e->stats);
}

/* GstVideoAggregator (compositor, glvideomixer's base) makes its
 * execution task pool in its instance init, where no hook can tell whose
 * the pool is (gpuprof_hooks_object_created sees no element running): the
 * pool's threads work for it. Looked up by name: no link to gst-video */
static gboolean
makes_pool_at_init (GpuprofElement * e)
{
  /* registered once the video library is loaded: looked up until then
   * (a first state change is rare) */
  GType type = g_type_from_name ("GstVideoAggregator");
  GstElement *el;
  gboolean yes;

  if (!type || !(el = gpuprof_objects_ref_element (NULL, e)))
    return FALSE;
  yes = g_type_is_a (G_OBJECT_TYPE (el), type);
  gst_object_unref (el);
  return yes;
}

/* its first state change, no lock held: what reading takes its lock */
static void
element_settled (GpuprofElement * e, gpointer user_data)
{
  if (e->queue)
    gpuprof_queue_element_settle (e);
  if (makes_pool_at_init (e))
    __atomic_store_n (&e->pool_user, TRUE, __ATOMIC_RELAXED);
}

static void reset_element (GpuprofMeasure * m, GpuprofElement * e);

/* registry lock held: its figures were folded into the removed totals of
 * a pipeline it left, and it joined one again: they start from zero (its
 * pads' counts do already) */
static void
element_rejoined (GpuprofElement * e, gpointer user_data)
{
  reset_element (user_data, e);
}

/* registry lock held: the element is destroyed and its run reported (or
 * the session ends) */
static void
element_fini (GpuprofElement * e, gpointer user_data)
{
  GpuprofMeasure *m = user_data;

  gpuprof_batches_element_fini (m->batches, e);
  gpuprof_streams_element_fini (m->streams, e);
  g_clear_pointer (&e->async, gpuprof_async_free);
  g_clear_pointer (&e->workers, g_free);
  g_clear_pointer (&e->queue, gpuprof_queue_element_free);
  g_clear_pointer (&e->stats, gpuprof_stats_free);
}

GpuprofMeasure *
gpuprof_measure_new (gboolean nvtx, GpuprofBus * bus)
{
  static const GpuprofObjectsFuncs funcs = { element_init, pad_init,
    element_resolved, element_pending, element_fini, element_settled,
    element_rejoined
  };
  GpuprofMeasure *m = g_new0 (GpuprofMeasure, 1);

  m->nvtx = nvtx;
  m->bus = bus;
  m->objects = gpuprof_objects_new (&funcs, m);
  m->streams = gpuprof_streams_new ();
  m->batches = gpuprof_batches_new (m->streams, m->objects);
  m->removed = gpuprof_removed_new ();
  m->pools = gpuprof_pools_new ();
  return m;
}

void
gpuprof_measure_free (GpuprofMeasure * m)
{
  if (m->gpu_on) {
    /* nothing of ours is called from the GPU side any more */
    gpuprof_gpu_set_owner_batch_func (NULL, NULL);
    gpuprof_owners_set_listener (NULL, NULL);
    gpuprof_gpu_set_path_func (GPUPROF_GPU_CHANNEL_TRACER, NULL, NULL);
  }
  /* the records' slots go with them, while batches and streams live */
  gpuprof_objects_free (m->objects);
  gpuprof_batches_free (m->batches);
  gpuprof_streams_free (m->streams);
  gpuprof_removed_free (m->removed);
  gpuprof_pools_free (m->pools);
  g_free (m);
}

void
gpuprof_measure_set_funcs (GpuprofMeasure * m,
    const GpuprofMeasureFuncs * funcs, gpointer user_data)
{
  m->funcs = *funcs;
  m->funcs_data = user_data;
}

/* ---------------------------------------------------------------- GPU */

gchar *
gpuprof_measure_element_path (guint32 id, gpointer measure)
{
  GpuprofMeasure *m = measure;

  return gpuprof_objects_dup_element_path (m->objects, id);
}

/* owners.c learnt a thread's owner: GPU work launched on it outside calls
 * is the owner's (issue 9) */
static void
owner_to_gpu (gint tid, guint32 element_id, gpointer user_data)
{
  gpuprof_gpu_set_thread_owner ((guint32) tid, element_id);
}

/* GPU work launched on a thread an element owns goes to a batch in flight
 * in it (an asynchronous element, gpuprof-async.h): the oldest above
 * @after (gpuprof_gpu_set_owner_batch_func()) */
static guint64
owner_batch (guint32 element_id, guint64 after, gpointer user_data)
{
  GpuprofMeasure *m = user_data;

  return gpuprof_batches_in_flight_after_of_id (m->batches, element_id,
      after);
}

void
gpuprof_measure_gpu_start (GpuprofMeasure * m)
{
  m->gpu_on = TRUE;
  gpuprof_gpu_set_path_func (GPUPROF_GPU_CHANNEL_TRACER,
      gpuprof_measure_element_path, m);
  gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_TRACER, TRUE);
  gpuprof_owners_set_listener (owner_to_gpu, NULL);
  gpuprof_gpu_set_owner_batch_func (owner_batch, m);
}

void
gpuprof_measure_gpu_stop (GpuprofMeasure * m)
{
  gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_TRACER, FALSE);
}

/* ---------------------------------------------------------------- runs */

void
gpuprof_measure_buffer_counts (GpuprofMeasure * m, GpuprofElement * e,
    guint64 * in, guint64 * out)
{
  gpuprof_objects_pad_buffers (m->objects, e, in, out);
  /* pulled in: the upstream pad's sequence counted it */
  *in += __atomic_load_n (&e->stats->buffers_in, __ATOMIC_RELAXED);
}

gboolean
gpuprof_measure_element_active (GpuprofMeasure * m, GpuprofElement * e)
{
  guint64 in, out;

  if (gpuprof_stats_calls (e->stats))
    return TRUE;
  gpuprof_measure_buffer_counts (m, e, &in, &out);
  return in || out;
}

gboolean
gpuprof_measure_pipeline_active (GpuprofMeasure * m, GpuprofPipeline * pl)
{
  GPtrArray *all = gpuprof_objects_elements (m->objects);
  gboolean active = FALSE;
  guint i;

  for (i = 0; i < all->len && !active; i++) {
    GpuprofElement *e = g_ptr_array_index (all, i);
    active = e->pipeline == pl && gpuprof_measure_element_active (m, e);
  }
  g_ptr_array_unref (all);
  /* elements that left it during the run measured in it too */
  return active || gpuprof_removed_any (m->removed, pl->id)
      || gpuprof_objects_has_left (m->objects, pl);
}

/* a new run, or a folded element back in a pipeline: its modules' state
 * from zero (not its pads' counts: gpuprof_objects_new_run()) */
static void
reset_element (GpuprofMeasure * m, GpuprofElement * e)
{
  guint j;

  gpuprof_stats_reset (e->stats);
  gpuprof_batches_reset (m->batches, e);
  gpuprof_streams_reset (m->streams, e);
  if (e->async)
    gpuprof_async_reset (e->async);
  if (e->workers)
    gpuprof_workers_reset (e->workers);
  for (j = 0; e->queue && j < e->queue->fifos->len; j++)
    gpuprof_queue_reset (g_ptr_array_index (e->queue->fifos, j));
}

void
gpuprof_measure_reset (GpuprofMeasure * m, GpuprofPipeline * pl)
{
  GPtrArray *all = gpuprof_objects_elements (m->objects);
  GPtrArray *threads = gpuprof_thread_list ();
  guint i;

  for (i = 0; i < all->len; i++) {
    GpuprofElement *e = g_ptr_array_index (all, i);
    if (e->pipeline != pl)
      continue;
    reset_element (m, e);
    gpuprof_objects_new_run (m->objects, e);
  }
  gpuprof_removed_reset (m->removed, pl->id);
  gpuprof_pools_reset (m, pl->id);
  for (i = 0; i < threads->len; i++) {
    GpuprofThread *t = g_ptr_array_index (threads, i);
    if (t->pipeline_id == pl->id)
      gpuprof_thread_reset_run (t);
  }
  g_ptr_array_unref (threads);
  g_ptr_array_unref (all);
  __atomic_store_n (&pl->playing_since, 0, __ATOMIC_RELAXED);
}

void
gpuprof_measure_end_element_queues (GpuprofMeasure * m, GpuprofElement * e,
    guint64 ts)
{
  GpuprofQueueOutputs out = gpuprof_measure_queue_outputs (m);

  gpuprof_queue_end_element (e, &out, ts);
}

void
gpuprof_measure_end_queues (GpuprofMeasure * m)
{
  GPtrArray *all = gpuprof_objects_elements (m->objects);
  guint64 ts = gpuprof_clock_now ();
  guint i;

  for (i = 0; i < all->len; i++)
    gpuprof_measure_end_element_queues (m, g_ptr_array_index (all, i), ts);
  g_ptr_array_unref (all);
}
