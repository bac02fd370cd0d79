/* gpuprof: stable ids, paths and roles for the elements and pads seen.
 *
 * A record is made on the first hook that sees its object, which can be a
 * pad hook that GStreamer runs holding the pad's lock (1.26.0-1.26.3: the
 * event hooks of sticky events): taking that lock again, or an element's
 * lock under it, deadlocks. So a record is made without any GStreamer
 * lock (docs/tracer.md, "What the hooks read"): names and parents are read
 * directly, as GStreamer's own tracers (stats, latency) and debug macros
 * do. A parented object cannot be renamed (gst_object_set_name() refuses),
 * so the names of a pad with a parent and of its ancestors are fixed, and
 * an element that streams is alive. What needs an element's lock (its
 * properties, its pad list) is read when it changes state
 * (gpuprof_objects_element_settle()), where GStreamer holds none. */
#include "gpuprof-objects.h"

#include <gst/base/base.h>
#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gpuprof_objects_debug);
#define GST_CAT_DEFAULT gpuprof_objects_debug

gint gpuprof_objects_generation = 0;

#define ID_CHUNK_BITS 10
#define ID_CHUNK (1u << ID_CHUNK_BITS)

static GQuark pad_quark;
static GQuark element_quark;
static GQuark pipeline_quark;

struct _GpuprofObjects
{
  GMutex lock;                  /* guards everything below */
  GPtrArray *elements;          /* GpuprofElement*, live records by id */
  GPtrArray *pads;              /* GpuprofPad*, live records by id */
  GPtrArray *pipelines;         /* GpuprofPipeline*, by id */
  guint32 next_element_id, next_pad_id, next_pipeline_id;
  GPtrArray *old_paths;         /* replaced paths, freed by the next sweep */
  GpuprofObjectsFuncs funcs;
  gpointer init_data;
  /* element id -> record, for lock-free lookups by id: chunks of
   * ID_CHUNK records, made as ids reach them, kept to the end (a reader
   * may hold one); entries written under the lock, read atomically */
  GpuprofElement **by_id[(GPUPROF_OBJECTS_MAX_ID >> ID_CHUNK_BITS) + 1];
  gboolean told_ids_out;
  /* records swept while their pipeline may still run (removed elements):
   * out of every list and index, freed RETIRE_US later, so a lock-free
   * lookup by id that found one just before (a batch in flight, a CUPTI
   * callback) never reads freed memory */
  GPtrArray *retired;           /* Retired* */
};

#define RETIRE_US G_USEC_PER_SEC

typedef struct
{
  GpuprofElement *e;
  gint64 since_us;              /* g_get_monotonic_time() at its sweep */
} Retired;

static void
element_free (GpuprofElement * e)
{
  g_weak_ref_clear (&e->alive);
  g_ptr_array_unref (e->pads);
  g_free (e->path);
  g_free (e->factory);
  g_free (e);
}

static void
pad_free (GpuprofPad * p)
{
  if (p->last_eos)
    gst_event_unref (p->last_eos);
  if (p->last_segment)
    gst_event_unref (p->last_segment);
  g_free (p->name);
  g_free (p);
}

static void
pipeline_free (GpuprofPipeline * p)
{
  g_free (p->name);
  g_free (p);
}

/* lock held: @e (NULL: none) is the record of @id from now */
static void
index_set_locked (GpuprofObjects * o, guint32 id, GpuprofElement * e)
{
  GpuprofElement **chunk;

  if (id > GPUPROF_OBJECTS_MAX_ID) {
    if (e && !o->told_ids_out) {
      o->told_ids_out = TRUE;
      GST_WARNING ("more than %u elements in this process: later ones are "
          "not found by id (GPU work launched on their own threads and "
          "the batches they form are not followed)", GPUPROF_OBJECTS_MAX_ID);
    }
    return;
  }
  chunk = o->by_id[id >> ID_CHUNK_BITS];
  if (!chunk) {
    if (!e)
      return;
    chunk = g_new0 (GpuprofElement *, ID_CHUNK);
    __atomic_store_n (&o->by_id[id >> ID_CHUNK_BITS], chunk,
        __ATOMIC_RELEASE);
  }
  __atomic_store_n (&chunk[id & (ID_CHUNK - 1)], e, __ATOMIC_RELEASE);
}

GpuprofElement *
gpuprof_objects_element_by_id (GpuprofObjects * o, guint32 id)
{
  GpuprofElement **chunk;

  if (id == 0 || id > GPUPROF_OBJECTS_MAX_ID)
    return NULL;
  chunk = __atomic_load_n (&o->by_id[id >> ID_CHUNK_BITS], __ATOMIC_ACQUIRE);
  return chunk ? __atomic_load_n (&chunk[id & (ID_CHUNK - 1)],
      __ATOMIC_ACQUIRE) : NULL;
}

GpuprofObjects *
gpuprof_objects_new (const GpuprofObjectsFuncs * funcs, gpointer user_data)
{
  GpuprofObjects *o = g_new0 (GpuprofObjects, 1);

  if (!pad_quark) {
    GST_DEBUG_CATEGORY_INIT (gpuprof_objects_debug, "gpuprof", 0,
        "gpuprof tracer");
    pad_quark = g_quark_from_static_string ("gpuprof-pad");
    element_quark = g_quark_from_static_string ("gpuprof-element");
    pipeline_quark = g_quark_from_static_string ("gpuprof-pipeline");
  }
  g_mutex_init (&o->lock);
  o->elements = g_ptr_array_new_with_free_func ((GDestroyNotify) element_free);
  o->pads = g_ptr_array_new_with_free_func ((GDestroyNotify) pad_free);
  o->pipelines =
      g_ptr_array_new_with_free_func ((GDestroyNotify) pipeline_free);
  o->old_paths = g_ptr_array_new_with_free_func (g_free);
  o->retired = g_ptr_array_new_with_free_func (g_free);
  o->next_element_id = o->next_pad_id = o->next_pipeline_id = 1;
  o->funcs = *funcs;
  o->init_data = user_data;
  return o;
}

void
gpuprof_objects_free (GpuprofObjects * o)
{
  guint i;

  /* only at gst_deinit: no object that carries our qdata is used again */
  g_ptr_array_unref (o->pads);
  for (i = 0; i < o->elements->len; i++)
    o->funcs.element_fini (g_ptr_array_index (o->elements, i), o->init_data);
  g_ptr_array_unref (o->elements);
  for (i = 0; i < o->retired->len; i++) {
    Retired *r = g_ptr_array_index (o->retired, i);
    o->funcs.element_fini (r->e, o->init_data);
    element_free (r->e);
  }
  g_ptr_array_unref (o->retired);
  for (i = 0; i < G_N_ELEMENTS (o->by_id); i++)
    g_free (o->by_id[i]);
  g_ptr_array_unref (o->pipelines);
  g_ptr_array_unref (o->old_paths);
  g_mutex_clear (&o->lock);
  g_free (o);
}

const gchar *
gpuprof_role_name (GpuprofRole role)
{
  switch (role) {
    case GPUPROF_ROLE_SOURCE:
      return "source";
    case GPUPROF_ROLE_SINK:
      return "sink";
    case GPUPROF_ROLE_QUEUE:
      return "queue";
    case GPUPROF_ROLE_AGGREGATOR:
      return "aggregator";
    default:
      return "filter";
  }
}

static gboolean
is_queue_factory (const gchar * f)
{
  return f && (!strcmp (f, "queue") || !strcmp (f, "queue2")
      || !strcmp (f, "multiqueue"));
}

static GpuprofRole
role_of (GstElement * element, const gchar * factory)
{
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (element);
  GList *l;
  guint sink_templates = 0, src_templates = 0;
  gboolean request_sinks = FALSE;

  guint n_sinkpads, n_srcpads;

  if (is_queue_factory (factory))
    return GPUPROF_ROLE_QUEUE;
  /* two counts read without the element's lock (a hook may run under a
   * pad's lock): refreshed at each report */
  n_sinkpads = __atomic_load_n (&element->numsinkpads, __ATOMIC_RELAXED);
  n_srcpads = __atomic_load_n (&element->numsrcpads, __ATOMIC_RELAXED);
  for (l = gst_element_class_get_pad_template_list (klass); l; l = l->next) {
    GstPadTemplate *t = l->data;
    if (GST_PAD_TEMPLATE_DIRECTION (t) == GST_PAD_SINK) {
      sink_templates++;
      if (GST_PAD_TEMPLATE_PRESENCE (t) == GST_PAD_REQUEST)
        request_sinks = TRUE;
    } else if (GST_PAD_TEMPLATE_DIRECTION (t) == GST_PAD_SRC) {
      src_templates++;
    }
  }
  if (GST_IS_AGGREGATOR (element)
      || (src_templates == 1 && (request_sinks || n_sinkpads > 1)))
    return GPUPROF_ROLE_AGGREGATOR;
  if (sink_templates == 0 && n_sinkpads == 0)
    return GPUPROF_ROLE_SOURCE;
  if (src_templates == 0 && n_srcpads == 0)
    return GPUPROF_ROLE_SINK;
  return GPUPROF_ROLE_FILTER;
}

/* takes the element's lock: off the hooks that a pad's lock may be held
 * around (settle, refresh). A synced sink, a live source, or an element
 * that syncs its buffers on the clock itself: a boolean "sync" property
 * set (identity, clocksync) */
static gboolean
waits_on_clock (GstElement * element)
{
  GParamSpec *sync;
  gboolean on = FALSE;

  if (GST_IS_BASE_SINK (element))
    return gst_base_sink_get_sync (GST_BASE_SINK (element));
  if (GST_IS_BASE_SRC (element))
    return gst_base_src_is_live (GST_BASE_SRC (element));
  sync = g_object_class_find_property (G_OBJECT_GET_CLASS (element), "sync");
  if (sync && sync->value_type == G_TYPE_BOOLEAN
      && (sync->flags & G_PARAM_READABLE))
    g_object_get (element, "sync", &on, NULL);
  return on;
}

/* Muxers and aggregators push from a task of their own: the threads that
 * feed them only hand over buffers (and wait for room). Takes the
 * element's lock: settle only. */
static gboolean
pushes_from_own_task (GstElement * element, GpuprofRole role)
{
  gboolean task = FALSE;
  GList *l;

  if (role == GPUPROF_ROLE_SOURCE || role == GPUPROF_ROLE_QUEUE)
    return FALSE;
  if (GST_IS_AGGREGATOR (element))
    return TRUE;
  GST_OBJECT_LOCK (element);
  for (l = element->srcpads; l && !task; l = l->next)
    task = GST_PAD_TASK (l->data) != NULL;
  GST_OBJECT_UNLOCK (element);
  return task;
}

/* "pipeline0/bin/infer"; also returns the top-level ancestor. No lock
 * (see the top of the file): each parent pointer is read once. */
static gchar *
path_of (GstElement * element, GstObject ** top)
{
  GString *path = g_string_new (NULL);
  GstObject *obj = GST_OBJECT (element);
  guint depth;

  /* bounded, in case of a loop seen while bins are rearranged */
  for (depth = 0;; depth++) {
    const gchar *name = GST_OBJECT_NAME (obj);
    GstObject *parent = __atomic_load_n (&GST_OBJECT_PARENT (obj),
        __ATOMIC_ACQUIRE);

    g_string_prepend (path, name ? name : "?");
    if (!parent || depth == 256) {
      *top = obj;
      break;
    }
    g_string_prepend_c (path, '/');
    obj = parent;
  }
  return g_string_free (path, FALSE);
}

static guint32
color_of (const gchar * path)
{
  /* stable: a hash of the path picks a hue from a palette readable on
   * Nsight's dark and light themes */
  static const guint32 palette[] = {
    0xFF4E79A7, 0xFFF28E2B, 0xFFE15759, 0xFF76B7B2, 0xFF59A14F,
    0xFFEDC948, 0xFFB07AA1, 0xFFFF9DA7, 0xFF9C755F, 0xFFBAB0AC,
    0xFF1F77B4, 0xFF2CA02C, 0xFFD62728, 0xFF9467BD, 0xFF8C564B,
  };
  return palette[g_str_hash (path) % G_N_ELEMENTS (palette)];
}

/* lock held */
static GpuprofPipeline *
pipeline_locked (GpuprofObjects * o, GstObject * top)
{
  GpuprofPipeline *p = g_object_get_qdata (G_OBJECT (top), pipeline_quark);

  if (p)
    return p;
  p = g_new0 (GpuprofPipeline, 1);
  p->id = o->next_pipeline_id++;
  p->name = g_strdup (GST_OBJECT_NAME (top));
  p->element = GST_ELEMENT_CAST (top);
  g_ptr_array_add (o->pipelines, p);
  g_object_set_qdata (G_OBJECT (top), pipeline_quark, p);
  return p;
}

GpuprofPipeline *
gpuprof_objects_pipeline (GpuprofObjects * o, GstElement * pipeline)
{
  GpuprofPipeline *p;

  g_mutex_lock (&o->lock);
  p = pipeline_locked (o, GST_OBJECT (pipeline));
  g_mutex_unlock (&o->lock);
  return p;
}

/* Path and pipeline from the element's ancestors now; lock held. Only a
 * top-level bin is a pipeline: an element with no bin above it has none
 * yet. A replaced path is kept until the next sweep, as reports may be
 * reading it. */
/* its pipeline reports what it measures: a top-level bin, not a piece
 * taken out of one; lock held */
static gboolean
reports (GpuprofPipeline * pl)
{
  return pl && !pl->detached;
}

/* its run ends, or ended: set to READY or NULL, or destroyed (its element
 * is alive while set: cleared under the lock when destroyed); lock held */
static gboolean
run_ending (GpuprofPipeline * pl)
{
  return !pl->element || GST_STATE_TARGET (pl->element) < GST_STATE_PAUSED;
}

/* measured since the last report (or the start) */
static gboolean
pad_has_data (GpuprofPad * p)
{
  return __atomic_load_n (&p->seq, __ATOMIC_RELAXED) != p->seq_base;
}

/* it has figures its pipeline did not report yet; lock held */
static gboolean
has_figures_locked (GpuprofObjects * o, GpuprofElement * e)
{
  guint i;

  if (o->funcs.element_pending (e, o->init_data))
    return TRUE;
  for (i = 0; i < e->pads->len; i++)
    if (pad_has_data (g_ptr_array_index (e->pads, i)))
      return TRUE;
  return FALSE;
}

/* its pads count from now; lock held */
static void
new_run_locked (GpuprofElement * e)
{
  guint i;

  e->gone_in = e->gone_out = 0;
  for (i = 0; i < e->pads->len; i++) {
    GpuprofPad *p = g_ptr_array_index (e->pads, i);
    p->seq_base = __atomic_load_n (&p->seq, __ATOMIC_RELAXED);
  }
}

static void moved_locked (GpuprofObjects * o, GpuprofElement * e,
    GpuprofPipeline * old);

static void
resolve_locked (GpuprofObjects * o, GpuprofElement * e)
{
  GstObject *top = NULL;
  gchar *path = path_of (e->element, &top);
  GpuprofPipeline *old = e->pipeline;
  GpuprofPipeline *now = GST_IS_BIN (top) ? pipeline_locked (o, top) : NULL;
  gboolean had_pipeline = e->pipeline != NULL;

  e->resolved_parent = GST_OBJECT_PARENT (e->element);
  /* taken out while its pipeline's run ends (decodebin empties itself in
   * its PAUSED to READY): what it measured is that run's, reported with it
   * under its path there; it moves after the report */
  if (e->pads && now != old && reports (old) && run_ending (old)
      && has_figures_locked (o, e)) {
    g_free (path);
    return;
  }
  e->pipeline = now;
  __atomic_store_n (&e->pipeline_id, e->pipeline ? e->pipeline->id : 0,
      __ATOMIC_RELAXED);
  /* e->pads is NULL while the record is being created */
  if (e->pads && old != e->pipeline)
    moved_locked (o, e, old);
  if (e->left) {
    /* its figures are told under the path it had in that pipeline */
    g_free (path);
  } else if (g_strcmp0 (path, e->path)) {
    if (e->path)
      g_ptr_array_add (o->old_paths, e->path);
    e->path = path;
    e->color = color_of (path);
  } else {
    g_free (path);
  }
  if (!had_pipeline && e->pipeline && e->pads && o->funcs.element_resolved)
    o->funcs.element_resolved (e, o->init_data);
}

/* @e's pipeline changed from @old (lock held). Taken out of a pipeline
 * while that one's run goes on, with figures of it: it is marked as
 * having left, and the pipeline's next snapshot folds those figures into
 * its removed totals (docs/tracer.md#removed); a bin taken out is a piece
 * of the pipeline, not one of its own: detached, never reported. Moved
 * into a pipeline before the fold, its figures go with it, as between
 * runs; after the fold, they start from zero there. */
static void
moved_locked (GpuprofObjects * o, GpuprofElement * e, GpuprofPipeline * old)
{
  GpuprofPipeline *now = e->pipeline;

  if (now && reports (old) && now->element
      && !GST_IS_PIPELINE (now->element))
    now->detached = TRUE;
  if (reports (now)) {
    e->left = NULL;
    if (e->folded) {
      e->folded = FALSE;
      new_run_locked (e);
      if (o->funcs.element_rejoined)
        o->funcs.element_rejoined (e, o->init_data);
    }
  } else if (reports (old) && !e->left && has_figures_locked (o, e)) {
    e->left = old;
  }
}

/* lock held; no GStreamer lock taken (the top of the file): what needs
 * one is read by gpuprof_objects_element_settle() */
static GpuprofElement *
element_locked (GpuprofObjects * o, GstElement * element)
{
  GpuprofElement *e = g_object_get_qdata (G_OBJECT (element), element_quark);
  GstElementFactory *factory;

  if (e)
    return e;
  e = g_new0 (GpuprofElement, 1);
  e->id = o->next_element_id++;
  e->element = element;
  /* GLib's lock of weak references, no GStreamer lock */
  g_weak_ref_init (&e->alive, element);
  resolve_locked (o, e);
  factory = gst_element_get_factory (element);
  e->factory = g_strdup (factory ? GST_OBJECT_NAME (factory) : "");
  e->role = role_of (element, e->factory);
  e->task_pushes = GST_IS_AGGREGATOR (element);
  e->pads = g_ptr_array_new ();
  g_ptr_array_add (o->elements, e);
  g_object_set_qdata (G_OBJECT (element), element_quark, e);
  o->funcs.element_init (e, o->init_data);
  index_set_locked (o, e->id, e);
  return e;
}

GpuprofElement *
gpuprof_objects_element (GpuprofObjects * o, GstElement * element)
{
  GpuprofElement *e = g_object_get_qdata (G_OBJECT (element), element_quark);

  if (G_LIKELY (e))
    return e;
  g_mutex_lock (&o->lock);
  e = element_locked (o, element);
  g_mutex_unlock (&o->lock);
  return e;
}

/* Once per element, in its first state change (GStreamer holds no object
 * lock around those hooks): what reading takes the element's own lock,
 * its properties and its src pads' tasks. An element first seen by a pad
 * hook has these from its next state change; the report refreshes the
 * clock waits (gpuprof_objects_refresh_roles). */
GpuprofElement *
gpuprof_objects_element_settle (GpuprofObjects * o, GstElement * element)
{
  GpuprofElement *e = gpuprof_objects_element (o, element);
  gint none = 0;

  if (!__atomic_compare_exchange_n (&e->settled, &none, 1, FALSE,
          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    return e;
  e->waits_on_clock = waits_on_clock (element);
  if (pushes_from_own_task (element, e->role))
    __atomic_store_n (&e->task_pushes, TRUE, __ATOMIC_RELAXED);
  /* the modules' reads (a queue's limits and leakiness), no lock held */
  if (o->funcs.element_settled)
    o->funcs.element_settled (e, o->init_data);
  return e;
}

GpuprofElement *
gpuprof_objects_element_peek (GstElement * element)
{
  return element_quark ? g_object_get_qdata (G_OBJECT (element),
      element_quark) : NULL;
}

/* Stands for a pad that has no parent yet (a demuxer pushes sticky events on
 * a pad before adding it): not registered, so the pad is looked at again
 * once it belongs to its element. */
static GpuprofPad orphan_pad = { 0, (gchar *) "", GST_PAD_UNKNOWN };

/* Where a pad missing from the cache goes (gpuprof_objects_pad): its first
 * slot if free, else its second; with both taken, the first slot's pad
 * moves to its own other slot if that one is free (one cuckoo step), else
 * it is evicted. An entry leaves only at a generation reset or when a pad
 * finds both its slots taken, so three pads of one first slot all stay. */
static guint
cache_place (GpuprofThread * t, gconstpointer pad)
{
  guint first = gpuprof_objects_cache_slot (pad);
  guint second = gpuprof_objects_cache_slot2 (pad);
  gconstpointer other;
  guint alt;

  if (!t->cache[first].key)
    return first;
  if (!t->cache[second].key)
    return second;
  other = t->cache[first].key;
  alt = gpuprof_objects_cache_slot (other);
  if (alt == first)
    alt = gpuprof_objects_cache_slot2 (other);
  if (!t->cache[alt].key)
    t->cache[alt] = t->cache[first];
  return first;
}

/* No GStreamer lock (the top of the file): a pad's first hook may be one
 * GStreamer runs holding the pad's lock */
GpuprofPad *
gpuprof_objects_pad_slow (GpuprofObjects * o, GpuprofThread * t, GstPad * pad)
{
  GpuprofPad *p = g_object_get_qdata (G_OBJECT (pad), pad_quark);
  GstObject *parent;
  guint slot;

  if (!p) {
    parent = __atomic_load_n (&GST_OBJECT_PARENT (pad), __ATOMIC_ACQUIRE);
    if (!parent)
      return &orphan_pad;
    g_mutex_lock (&o->lock);
    p = g_object_get_qdata (G_OBJECT (pad), pad_quark);
    if (!p) {
      p = g_new0 (GpuprofPad, 1);
      p->id = o->next_pad_id++;
      /* fixed while the pad has a parent */
      p->name = g_strdup (GST_OBJECT_NAME (pad));
      p->direction = GST_PAD_DIRECTION (pad);
      /* ghost and proxy pads only forward: the real pads carry the work */
      if (GST_IS_ELEMENT (parent) && !GST_IS_PROXY_PAD (pad)) {
        p->element = element_locked (o, GST_ELEMENT_CAST (parent));
        g_ptr_array_add (p->element->pads, p);
      }
      g_ptr_array_add (o->pads, p);
      g_object_set_qdata (G_OBJECT (pad), pad_quark, p);
      if (p->element)
        o->funcs.pad_init (p, o->init_data);
    }
    g_mutex_unlock (&o->lock);
  }
  slot = cache_place (t, pad);
  t->cache[slot].key = pad;
  t->cache[slot].pad = p;
  return p;
}

gboolean
gpuprof_objects_destroyed (GpuprofObjects * o, GstObject * object)
{
  gboolean freeable = FALSE;

  g_mutex_lock (&o->lock);
  if (GST_IS_PAD (object)) {
    GpuprofPad *p = g_object_get_qdata (G_OBJECT (object), pad_quark);
    /* the address may be reused by a new pad: drop it from every cache */
    if (p) {
      p->destroyed = TRUE;
      g_atomic_int_inc (&gpuprof_objects_generation);
    }
  } else if (GST_IS_ELEMENT (object)) {
    GpuprofElement *e = g_object_get_qdata (G_OBJECT (object), element_quark);
    GpuprofPipeline *p = g_object_get_qdata (G_OBJECT (object),
        pipeline_quark);
    if (e) {
      e->element = NULL;
      /* destroyed while its pipeline's run goes on: it left it (while the
       * run ends, its record waits for the report, as the run's) */
      if (reports (e->pipeline) && !e->left && !run_ending (e->pipeline)
          && has_figures_locked (o, e))
        e->left = e->pipeline;
      if (e->left) {
        e->pipeline = NULL;
        __atomic_store_n (&e->pipeline_id, 0, __ATOMIC_RELAXED);
      }
      freeable = !reports (e->pipeline) || !has_figures_locked (o, e);
    }
    if (p)
      p->element = NULL;
  }
  g_mutex_unlock (&o->lock);
  return freeable;
}

GPtrArray *
gpuprof_objects_elements (GpuprofObjects * o)
{
  GPtrArray *copy = g_ptr_array_new ();
  guint i;

  g_mutex_lock (&o->lock);
  for (i = 0; i < o->elements->len; i++)
    g_ptr_array_add (copy, g_ptr_array_index (o->elements, i));
  g_mutex_unlock (&o->lock);
  return copy;
}

GPtrArray *
gpuprof_objects_pipelines (GpuprofObjects * o)
{
  GPtrArray *copy = g_ptr_array_new ();
  guint i;

  g_mutex_lock (&o->lock);
  for (i = 0; i < o->pipelines->len; i++) {
    GpuprofPipeline *pl = g_ptr_array_index (o->pipelines, i);
    /* a bin seen before it was added, now inside its pipeline, or one
     * taken out of it: no run of its own (its element, when set, is
     * alive: cleared under this lock when destroyed) */
    if (pl->detached || (pl->element && GST_OBJECT_PARENT (pl->element)))
      continue;
    g_ptr_array_add (copy, pl);
  }
  g_mutex_unlock (&o->lock);
  return copy;
}

void
gpuprof_objects_elements_of (GpuprofObjects * o, GpuprofPipeline * pl,
    GPtrArray * members, GPtrArray * left)
{
  guint i;

  g_mutex_lock (&o->lock);
  for (i = 0; i < o->elements->len; i++) {
    GpuprofElement *e = g_ptr_array_index (o->elements, i);
    if (members && e->pipeline == pl)
      g_ptr_array_add (members, e);
    if (left && e->left == pl) {
      g_ptr_array_add (left, e);
      e->left = NULL;
      e->folded = TRUE;
    }
  }
  g_mutex_unlock (&o->lock);
}

gboolean
gpuprof_objects_has_left (GpuprofObjects * o, GpuprofPipeline * pl)
{
  gboolean any = FALSE;
  guint i;

  g_mutex_lock (&o->lock);
  for (i = 0; i < o->elements->len && !any; i++)
    any = ((GpuprofElement *) g_ptr_array_index (o->elements, i))->left == pl;
  g_mutex_unlock (&o->lock);
  return any;
}

/* ids only grow: the live records, in id order, are found by bisection */
static gpointer
find_by_id (GPtrArray * records, guint32 id)
{
  guint lo = 0, hi = records->len;

  while (lo < hi) {
    guint mid = (lo + hi) / 2;
    /* every record type starts with its guint32 id */
    guint32 mid_id = *(guint32 *) g_ptr_array_index (records, mid);
    if (mid_id == id)
      return g_ptr_array_index (records, mid);
    if (mid_id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

gchar *
gpuprof_objects_dup_element_path (GpuprofObjects * o, guint32 id)
{
  GpuprofElement *e;
  gchar *path = NULL;

  g_mutex_lock (&o->lock);
  if ((e = find_by_id (o->elements, id)))
    path = g_strdup (e->path);
  g_mutex_unlock (&o->lock);
  return path;
}

gchar *
gpuprof_objects_dup_pad_name (GpuprofObjects * o, guint32 id)
{
  GpuprofPad *p;
  gchar *name = NULL;

  g_mutex_lock (&o->lock);
  if ((p = find_by_id (o->pads, id)))
    name = g_strdup (p->name);
  g_mutex_unlock (&o->lock);
  return name;
}

gchar *
gpuprof_objects_dup_last_pipeline_name (GpuprofObjects * o)
{
  gchar *name = NULL;

  guint i;

  /* a bin seen before it was added to its pipeline has a record too */
  g_mutex_lock (&o->lock);
  for (i = o->pipelines->len; i > 0 && !name; i--) {
    GpuprofPipeline *pl = g_ptr_array_index (o->pipelines, i - 1);
    if (!pl->element || !GST_OBJECT_PARENT (pl->element))
      name = g_strdup (pl->name);
  }
  g_mutex_unlock (&o->lock);
  return name;
}

/* @obj is @ancestor or below it; parents read as path_of() does */
static gboolean
has_ancestor (GstObject * obj, GstObject * ancestor)
{
  guint depth;

  for (depth = 0; obj && depth <= 256; depth++) {
    if (obj == ancestor)
      return TRUE;
    obj = __atomic_load_n (&GST_OBJECT_PARENT (obj), __ATOMIC_ACQUIRE);
  }
  return FALSE;
}

/* An element added to a bin (or a bin to another): itself and every
 * registered element it holds get their new path and pipeline. Our own
 * records are walked, not the bin (its iterator takes the bin's lock, and
 * a hook takes none). Under the registry lock no record's element is
 * freed: each passes gpuprof_objects_destroyed() first. */
void
gpuprof_objects_reparented (GpuprofObjects * o, GstElement * element)
{
  guint i;

  g_mutex_lock (&o->lock);
  for (i = 0; i < o->elements->len; i++) {
    GpuprofElement *e = g_ptr_array_index (o->elements, i);
    if (e->element && has_ancestor (GST_OBJECT_CAST (e->element),
            GST_OBJECT_CAST (element)))
      resolve_locked (o, e);
  }
  g_mutex_unlock (&o->lock);
}

guint32
gpuprof_objects_resolve_streaming (GpuprofObjects * o, GpuprofElement * e)
{
  GstElement *element = e->element;

  /* an element streaming on its own (no bin) costs one compare per call */
  if (element && GST_OBJECT_PARENT (element) != e->resolved_parent) {
    g_mutex_lock (&o->lock);
    if (e->element)
      resolve_locked (o, e);
    g_mutex_unlock (&o->lock);
  }
  return __atomic_load_n (&e->pipeline_id, __ATOMIC_RELAXED);
}

/* lock held */
static void
remove_pad_locked (GpuprofObjects * o, GpuprofPad * p)
{
  if (p->element)
    g_ptr_array_remove (p->element->pads, p);
  /* o->pads frees it */
  g_ptr_array_remove (o->pads, p);
}

/* freed_*_ids: when not NULL, the ids freed are appended (guint32) */
void
gpuprof_objects_sweep (GpuprofObjects * o, GArray * freed_element_ids,
    GArray * freed_pad_ids)
{
  guint i, j;

  gint64 now_us = g_get_monotonic_time ();

  g_mutex_lock (&o->lock);
  /* retired by an earlier sweep long enough ago: no lookup holds them */
  for (i = o->retired->len; i > 0; i--) {
    Retired *r = g_ptr_array_index (o->retired, i - 1);
    if (now_us - r->since_us < RETIRE_US)
      continue;
    o->funcs.element_fini (r->e, o->init_data);
    element_free (r->e);
    g_ptr_array_remove_index_fast (o->retired, i - 1);
  }
  /* pads first: an element goes once all its pads have gone. A pad's own
   * data is its sequence since the run started; an element in no pipeline
   * that reports is never reported, so nothing of it is kept, once what
   * it measured before it left was folded. */
  for (i = o->pads->len; i > 0; i--) {
    GpuprofPad *p = g_ptr_array_index (o->pads, i - 1);
    if (!p->destroyed || (p->element && p->element->left))
      continue;
    /* a pad of an element that stays (a released request pad): its
     * buffers count on the element */
    if (p->element && p->element->element && pad_has_data (p)) {
      guint64 n = __atomic_load_n (&p->seq, __ATOMIC_RELAXED) - p->seq_base;
      if (p->direction == GST_PAD_SINK)
        p->element->gone_in += n;
      else if (p->direction == GST_PAD_SRC)
        p->element->gone_out += n;
      p->seq_base += n;
    }
    if (!pad_has_data (p) || !p->element || !reports (p->element->pipeline)) {
      if (freed_pad_ids)
        g_array_append_val (freed_pad_ids, p->id);
      remove_pad_locked (o, p);
    }
  }
  for (i = o->elements->len; i > 0; i--) {
    GpuprofElement *e = g_ptr_array_index (o->elements, i - 1);
    Retired *r;

    if (e->element || e->pads->len || e->left
        || (reports (e->pipeline)
            && o->funcs.element_pending (e, o->init_data)))
      continue;
    index_set_locked (o, e->id, NULL);
    if (freed_element_ids)
      g_array_append_val (freed_element_ids, e->id);
    r = g_new (Retired, 1);
    r->e = g_ptr_array_steal_index (o->elements, i - 1);
    r->e->pipeline = NULL;      /* its pipeline's record may go first */
    r->since_us = now_us;
    g_ptr_array_add (o->retired, r);
  }
  for (i = o->pipelines->len; i > 0; i--) {
    GpuprofPipeline *pl = g_ptr_array_index (o->pipelines, i - 1);
    gboolean used = FALSE;
    if (pl->element)
      continue;
    for (j = 0; j < o->elements->len && !used; j++) {
      GpuprofElement *e = g_ptr_array_index (o->elements, j);
      used = e->pipeline == pl || e->left == pl;
    }
    if (!used)
      g_ptr_array_remove_index (o->pipelines, i - 1);
  }
  g_ptr_array_set_size (o->old_paths, 0);
  g_mutex_unlock (&o->lock);
}

void
gpuprof_objects_count (GpuprofObjects * o, guint * elements, guint * pads,
    guint * pipelines)
{
  g_mutex_lock (&o->lock);
  *elements = o->elements->len;
  *pads = o->pads->len;
  *pipelines = o->pipelines->len;
  g_mutex_unlock (&o->lock);
}

/* Roles and clock waits can change after first sight (request pads added,
 * sync or is-live set late): refresh from the elements still alive. */
void
gpuprof_objects_refresh_roles (GpuprofObjects * o)
{
  GPtrArray *alive = g_ptr_array_new ();
  guint i;

  /* references taken under the lock (not e->element: an element whose
   * last reference went is still set until the object-destroyed hook, late
   * in its finalize), read and dropped outside it: a last reference
   * dropped here finalizes the element, whose hook takes the lock. The
   * records stay: they go under the report lock, which the snapshot
   * calling this holds */
  g_mutex_lock (&o->lock);
  for (i = 0; i < o->elements->len; i++) {
    GpuprofElement *e = g_ptr_array_index (o->elements, i);
    GstElement *el;

    if (e->element && (el = g_weak_ref_get (&e->alive))) {
      g_ptr_array_add (alive, e);
      g_ptr_array_add (alive, el);
    }
  }
  g_mutex_unlock (&o->lock);
  for (i = 0; i + 1 < alive->len; i += 2) {
    GpuprofElement *e = g_ptr_array_index (alive, i);
    GstElement *el = g_ptr_array_index (alive, i + 1);

    e->role = role_of (el, e->factory);
    e->waits_on_clock = waits_on_clock (el);
    gst_object_unref (el);
  }
  g_ptr_array_unref (alive);
}

/* Buffers in and out of an element in this run: the sequence numbers of its
 * sink and src pads (a pull advances the upstream src pad's). */
void
gpuprof_objects_pad_buffers (GpuprofObjects * o, GpuprofElement * e,
    guint64 * in, guint64 * out)
{
  guint i;

  g_mutex_lock (&o->lock);
  *in = e->gone_in;
  *out = e->gone_out;
  for (i = 0; i < e->pads->len; i++) {
    GpuprofPad *p = g_ptr_array_index (e->pads, i);
    guint64 n = __atomic_load_n (&p->seq, __ATOMIC_RELAXED) - p->seq_base;
    if (p->direction == GST_PAD_SINK)
      *in += n;
    else if (p->direction == GST_PAD_SRC)
      *out += n;
  }
  g_mutex_unlock (&o->lock);
}

void
gpuprof_objects_pad_counts (GpuprofObjects * o, GpuprofElement * e,
    GArray * out)
{
  guint i;

  g_array_set_size (out, 0);
  g_mutex_lock (&o->lock);
  /* gone, or stopped on purpose while its pipeline plays (a camera being
   * taken out): nothing of it is watched. Its element is alive while set
   * (cleared under this lock when destroyed) */
  if (!e->element || GST_STATE (e->element) < GST_STATE_PAUSED) {
    g_mutex_unlock (&o->lock);
    return;
  }
  for (i = 0; i < e->pads->len; i++) {
    GpuprofPad *p = g_ptr_array_index (e->pads, i);
    GpuprofPadCount c = { p->id, p->direction,
      __atomic_load_n (&p->seq, __ATOMIC_RELAXED) - p->seq_base, p->name
    };
    if (!p->destroyed)
      g_array_append_val (out, c);
  }
  g_mutex_unlock (&o->lock);
}

GstElement *
gpuprof_objects_ref_element (GpuprofObjects * o, GpuprofElement * e)
{
  /* not gst_object_ref (e->element): between its last unref and the
   * object-destroyed hook (late in its finalize) its count is 0 */
  return g_weak_ref_get (&e->alive);
}

guint64
gpuprof_objects_src_pad_buffers (GpuprofObjects * o, GpuprofElement * e,
    const gchar * pad_name)
{
  guint64 n = 0;
  guint i;

  g_mutex_lock (&o->lock);
  for (i = 0; i < e->pads->len; i++) {
    GpuprofPad *p = g_ptr_array_index (e->pads, i);
    if (p->direction == GST_PAD_SRC && !g_strcmp0 (p->name, pad_name)) {
      n = __atomic_load_n (&p->seq, __ATOMIC_RELAXED) - p->seq_base;
      break;
    }
  }
  g_mutex_unlock (&o->lock);
  return n;
}

/* A new run counts from here; nothing streams at NULL. */
void
gpuprof_objects_new_run (GpuprofObjects * o, GpuprofElement * e)
{
  g_mutex_lock (&o->lock);
  new_run_locked (e);
  g_mutex_unlock (&o->lock);
}
