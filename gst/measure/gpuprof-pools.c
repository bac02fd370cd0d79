/* gpuprof: buffer pools, from GStreamer 1.28's pool hooks (see
 * gpuprof-pools.h). */
#include "gpuprof-pools.h"

#include <string.h>

#include "gpuprof-clock.h"

/* One pool. The hooks update it under its lock; the snapshot reads it. */
typedef struct
{
  GMutex lock;
  GWeakRef pool;                /* to read its config off the hooks */
  gchar *name;
  guint32 element_id;           /* who acquires from it (its latest
                                 * acquire's), 0: not known yet */
  gchar *element_path;          /* its path, taken when it became the
                                 * acquirer (its record may be freed
                                 * before the pool: a removed camera) */
  guint32 pipeline_id;          /* its pipeline, 0: not known yet */
  GHashTable *buffers;          /* the distinct buffers seen (a set) */
  gint64 free;                  /* buffers on the free list; a moment
                                 * below 0 when an acquire's dequeue hook
                                 * runs before the release's queued hook
                                 * of the buffer it took (the list stayed
                                 * empty) */
  guint64 acquired, returned;
  guint64 freed;                /* buffers freed as it stopped (still in
                                 * the set: a restarted pool's new
                                 * buffers at the same addresses count
                                 * once) */
  guint64 outstanding_max;
  guint64 empties, empty_ns, empty_max_ns;
  guint64 empty_since;          /* the free list is empty since, 0: not */
  guint min_buffers, max_buffers;       /* from its config, last read */
  gboolean gone;                /* destroyed: kept as its own row while its
                                 * pipeline has few such (GONE_ROWS) */
  guint64 gone_seq;             /* the order it was destroyed in */
} Pool;

/* destroyed pools a pipeline keeps as rows of their own; those beyond
 * are folded into its "(destroyed)" row */
#define GONE_ROWS 16

struct _GpuprofPools
{
  GMutex lock;                  /* records, destroyed; never taken inside
                                 * a record's lock */
  GQuark quark;                 /* this instance's qdata on the pools */
  GPtrArray *records;           /* Pool *, live pools */
  GHashTable *destroyed;        /* pipeline id -> GpuprofPoolRow: the
                                 * figures of its destroyed pools */
  guint64 gone_seq;             /* pools destroyed so far */
};

gboolean
gpuprof_pools_hooks_supported (guint major, guint minor)
{
  /* GStreamer 1.28.0: "pool-buffer-queued" and "pool-buffer-dequeued"
   * (gst/gsttracerutils.h, GstTracerHookPoolBufferQueued/Dequeued) */
  return major > 1 || (major == 1 && minor >= 28);
}

static void
row_free (gpointer row)
{
  gpuprof_summary_row_clear (GPUPROF_SUMMARY_POOLS, row);
  g_free (row);
}

GpuprofPools *
gpuprof_pools_new (void)
{
  static gint instances;
  GpuprofPools *p = g_new0 (GpuprofPools, 1);
  gchar *name = g_strdup_printf ("gpuprof-pool-%d",
      g_atomic_int_add (&instances, 1));

  g_mutex_init (&p->lock);
  /* a quark per instance: a pool's qdata never points into a freed one */
  p->quark = g_quark_from_string (name);
  g_free (name);
  p->records = g_ptr_array_new ();
  p->destroyed = g_hash_table_new_full (NULL, NULL, NULL, row_free);
  return p;
}

static void
pool_free (Pool * r)
{
  g_weak_ref_clear (&r->pool);
  g_hash_table_unref (r->buffers);
  g_free (r->element_path);
  g_free (r->name);
  g_mutex_clear (&r->lock);
  g_free (r);
}

void
gpuprof_pools_free (GpuprofPools * p)
{
  guint i;

  if (!p)
    return;
  /* pools still alive keep a qdata of this instance's quark: never read
   * again (no hook runs once the tracer is gone) */
  for (i = 0; i < p->records->len; i++)
    pool_free (g_ptr_array_index (p->records, i));
  g_ptr_array_unref (p->records);
  g_hash_table_unref (p->destroyed);
  g_mutex_clear (&p->lock);
  g_free (p);
}

/* @pool's record, made at its first hook */
static Pool *
pool_get (GpuprofPools * p, GstBufferPool * pool)
{
  Pool *r = g_object_get_qdata (G_OBJECT (pool), p->quark);

  if (G_LIKELY (r))
    return r;
  g_mutex_lock (&p->lock);
  r = g_object_get_qdata (G_OBJECT (pool), p->quark);
  if (!r) {
    r = g_new0 (Pool, 1);
    g_mutex_init (&r->lock);
    /* set at construction and never changed: read without its lock */
    r->name = g_strdup (GST_OBJECT_NAME (pool));
    r->buffers = g_hash_table_new (NULL, NULL);
    /* a pool first seen in its finalize (freeing what it holds) gets
     * none: a weak ref needs a live object */
    g_weak_ref_init (&r->pool, g_atomic_int_get (&G_OBJECT (pool)->ref_count)
        > 0 ? pool : NULL);
    g_ptr_array_add (p->records, r);
    g_object_set_qdata (G_OBJECT (pool), p->quark, r);
  }
  g_mutex_unlock (&p->lock);
  return r;
}

/* the element whose work runs on this thread now: the innermost call's,
 * else its source loop's (what the stall watchdog reads); 0 when none */
static guint32
current_element (void)
{
  GpuprofThread *t = gpuprof_thread_peek ();
  guint64 doing;

  if (!t)
    return 0;
  if (t->depth > 0) {
    const GpuprofFrame *f = &t->frames[t->depth - 1];
    if (f->element)
      return f->element->id;
    if (f->pad && f->pad->element)
      return f->pad->element->id;
  }
  doing = __atomic_load_n (&t->doing, __ATOMIC_ACQUIRE);
  return (doing >> 32) == GPUPROF_DOING_LOOP ? (guint32) doing : 0;
}

static guint32
element_pipeline (GpuprofMeasure * m, guint32 element_id)
{
  GpuprofElement *e = element_id ?
      gpuprof_objects_element_by_id (m->objects, element_id) : NULL;

  return e ? __atomic_load_n (&e->pipeline_id, __ATOMIC_RELAXED) : 0;
}

/* buffers it holds, free or out (its lock held) */
static guint64
held (Pool * r)
{
  guint64 seen = g_hash_table_size (r->buffers);

  return seen > r->freed ? seen - r->freed : 0;
}

static void
empty_end (Pool * r, guint64 ts)
{
  guint64 d = ts > r->empty_since ? ts - r->empty_since : 0;

  r->empty_ns += d;
  r->empty_max_ns = MAX (r->empty_max_ns, d);
  r->empty_since = 0;
}

void
gpuprof_pools_queued (GpuprofMeasure * m, guint64 ts, GstBufferPool * pool,
    GstBuffer * buffer)
{
  Pool *r = pool_get (m->pools, pool);

  g_mutex_lock (&r->lock);
  g_hash_table_add (r->buffers, buffer);
  r->returned++;
  r->free++;
  if (r->free > 0 && r->empty_since)
    empty_end (r, ts);
  g_mutex_unlock (&r->lock);
}

void
gpuprof_pools_dequeued (GpuprofMeasure * m, guint64 ts, GstBufferPool * pool,
    GstBuffer * buffer)
{
  Pool *r = pool_get (m->pools, pool);
  /* set before a deactivated pool frees what it holds (default_stop);
   * acquires fail while it is set */
  gboolean stopping = GST_BUFFER_POOL_IS_FLUSHING (pool);
  guint32 owner = 0, pipeline = 0;
  gchar *path = NULL;
  guint64 out;

  /* at every acquire, not the first only: a task's thread comes from
   * GLib's pool, and till its first push it still tells the element
   * whose task it ran before. Its path only when it changes (the
   * registry's lock, ours: rare) */
  if (!stopping && (owner = current_element ())) {
    pipeline = element_pipeline (m, owner);
    if (pipeline && owner != __atomic_load_n (&r->element_id,
            __ATOMIC_RELAXED))
      path = gpuprof_objects_dup_element_path (m->objects, owner);
  }
  g_mutex_lock (&r->lock);
  r->free--;
  if (stopping) {
    /* freed, not given out */
    r->freed++;
  } else {
    g_hash_table_add (r->buffers, buffer);
    r->acquired++;
    out = held (r) - MIN (held (r), (guint64) MAX (r->free, 0));
    r->outstanding_max = MAX (r->outstanding_max, out);
    if (r->free <= 0 && !r->empty_since) {
      r->empty_since = MAX (ts, 1);
      r->empties++;
    }
    if (owner && pipeline) {
      if (path && owner != r->element_id) {
        g_free (r->element_path);
        r->element_path = g_steal_pointer (&path);
      }
      __atomic_store_n (&r->element_id, owner, __ATOMIC_RELAXED);
      __atomic_store_n (&r->pipeline_id, pipeline, __ATOMIC_RELAXED);
    }
  }
  g_mutex_unlock (&r->lock);
  g_free (path);
}

/* @r's figures (its lock held) into @row, summed; the empty time counts
 * up to @now */
static void
add_figures (GpuprofPoolRow * row, Pool * r, guint64 now)
{
  guint64 buffers = g_hash_table_size (r->buffers);
  guint64 now_held = held (r);
  guint64 free = MIN ((guint64) MAX (r->free, 0), now_held);
  guint64 open = r->empty_since && now > r->empty_since ?
      now - r->empty_since : 0;

  row->pools++;
  row->acquired += r->acquired;
  row->returned += r->returned;
  row->buffers += buffers;
  row->free += free;
  row->outstanding += now_held - free;
  row->outstanding_max = MAX (row->outstanding_max, r->outstanding_max);
  row->min_buffers += r->min_buffers;
  row->max_buffers += r->max_buffers;
  row->empties += r->empties;
  row->empty_ns += r->empty_ns + open;
  row->empty_max_ns = MAX (row->empty_max_ns, MAX (r->empty_max_ns, open));
}

void
gpuprof_pools_destroyed (GpuprofMeasure * m, guint64 ts, GstObject * pool)
{
  GpuprofPools *p = m->pools;
  Pool *r = g_object_get_qdata (G_OBJECT (pool), p->quark);
  GpuprofPoolRow *row;
  Pool *oldest = NULL;
  guint32 pipeline;
  guint i, n_gone = 0;

  if (!r)
    return;
  g_object_set_qdata (G_OBJECT (pool), p->quark, NULL);
  g_mutex_lock (&p->lock);
  /* no hook runs for a pool in finalize after this one: its record is
   * ours alone now */
  pipeline = r->pipeline_id ? r->pipeline_id :
      element_pipeline (m, r->element_id);
  r->pipeline_id = pipeline;
  if (r->empty_since)
    empty_end (r, ts);
  r->gone = TRUE;
  r->gone_seq = ++p->gone_seq;
  if (!pipeline) {
    /* no element acquired from it: in no table */
    g_ptr_array_remove (p->records, r);
    g_mutex_unlock (&p->lock);
    pool_free (r);
    return;
  }
  /* past GONE_ROWS, the first destroyed is summed: the last ones (a
   * pipeline's own, destroyed as it stops) keep their rows */
  for (i = 0; i < p->records->len; i++) {
    Pool *o = g_ptr_array_index (p->records, i);
    if (o->gone && o->pipeline_id == pipeline) {
      n_gone++;
      if (!oldest || o->gone_seq < oldest->gone_seq)
        oldest = o;
    }
  }
  if (n_gone > GONE_ROWS) {
    g_ptr_array_remove (p->records, oldest);
    row = g_hash_table_lookup (p->destroyed, GUINT_TO_POINTER (pipeline));
    if (!row) {
      row = g_new0 (GpuprofPoolRow, 1);
      row->pool = g_strdup ("(destroyed)");
      row->element = g_strdup ("");
      g_hash_table_insert (p->destroyed, GUINT_TO_POINTER (pipeline), row);
    }
    add_figures (row, oldest, ts);
    pool_free (oldest);
  }
  g_mutex_unlock (&p->lock);
}

/* reads the pools' configs (min, max buffers), off the hooks: taking a
 * pool's lock is safe here. Without the pools' lock: the last unref of a
 * pool (ours, if its owner dropped it meanwhile) calls
 * gpuprof_pools_destroyed(). */
void
gpuprof_pools_read_configs (GpuprofMeasure * m)
{
  GpuprofPools *p = m->pools;
  GPtrArray *pools = g_ptr_array_new ();
  GPtrArray *records = g_ptr_array_new ();
  guint i, min, max;

  g_mutex_lock (&p->lock);
  for (i = 0; i < p->records->len; i++) {
    Pool *r = g_ptr_array_index (p->records, i);
    GstBufferPool *pool = g_weak_ref_get (&r->pool);
    if (pool) {
      /* the record lives while we hold the pool */
      g_ptr_array_add (pools, pool);
      g_ptr_array_add (records, r);
    }
  }
  g_mutex_unlock (&p->lock);
  for (i = 0; i < pools->len; i++) {
    GstBufferPool *pool = g_ptr_array_index (pools, i);
    Pool *r = g_ptr_array_index (records, i);
    GstStructure *config = gst_buffer_pool_get_config (pool);

    if (config && gst_buffer_pool_config_get_params (config, NULL, NULL,
            &min, &max)) {
      g_mutex_lock (&r->lock);
      r->min_buffers = min;
      r->max_buffers = max;
      g_mutex_unlock (&r->lock);
    }
    if (config)
      gst_structure_free (config);
  }
  g_ptr_array_set_free_func (pools, gst_object_unref);
  g_ptr_array_unref (pools);
  g_ptr_array_unref (records);
}

void
gpuprof_pools_snapshot (GpuprofMeasure * m, guint32 pipeline_id,
    guint64 now, GpuprofSnapshot * snap)
{
  GpuprofPools *p = m->pools;
  GpuprofPoolRow *gone;
  guint i;

  gpuprof_pools_read_configs (m);
  g_mutex_lock (&p->lock);
  for (i = 0; i < p->records->len; i++) {
    Pool *r = g_ptr_array_index (p->records, i);
    GpuprofPoolRow row = { 0 };

    g_mutex_lock (&r->lock);
    if (!r->pipeline_id && r->element_id)
      r->pipeline_id = element_pipeline (m, r->element_id);
    if (r->pipeline_id == pipeline_id && (r->acquired || r->returned)) {
      row.pool = g_strdup (r->name);
      row.element = g_strdup (r->element_path ? r->element_path : "");
      add_figures (&row, r, now);
      g_array_append_val (snap->pools, row);
    }
    g_mutex_unlock (&r->lock);
  }
  gone = g_hash_table_lookup (p->destroyed, GUINT_TO_POINTER (pipeline_id));
  if (gone) {
    GpuprofPoolRow row = *gone;
    row.pool = g_strdup (gone->pool);
    row.element = g_strdup (gone->element);
    g_array_append_val (snap->pools, row);
  }
  g_mutex_unlock (&p->lock);
}

void
gpuprof_pools_reset (GpuprofMeasure * m, guint32 pipeline_id)
{
  GpuprofPools *p = m->pools;
  guint64 now = gpuprof_clock_now ();
  guint i;

  g_mutex_lock (&p->lock);
  for (i = 0; i < p->records->len; i++) {
    Pool *r = g_ptr_array_index (p->records, i);

    if (r->gone && r->pipeline_id == pipeline_id) {
      g_ptr_array_remove_index (p->records, i--);
      pool_free (r);
      continue;
    }
    g_mutex_lock (&r->lock);
    if (r->pipeline_id == pipeline_id) {
      r->acquired = r->returned = r->freed = 0;
      r->empties = r->empty_ns = r->empty_max_ns = 0;
      r->outstanding_max = held (r) - MIN ((guint64) MAX (r->free, 0),
          held (r));
      if (r->empty_since)
        r->empty_since = MAX (now, 1);
    }
    g_mutex_unlock (&r->lock);
  }
  g_hash_table_remove (p->destroyed, GUINT_TO_POINTER (pipeline_id));
  g_mutex_unlock (&p->lock);
}
