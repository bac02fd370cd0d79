/* gpuprof: stable ids, paths and roles for the elements and pads seen. */
#include "gpuprof-objects.h"
#include "gpuprof-queue.h"

#include <gst/base/base.h>
#include <stdlib.h>
#include <string.h>

gint gpuprof_objects_generation = 0;

static GQuark pad_quark;
static GQuark element_quark;
static GQuark pipeline_quark;

struct _GpuprofObjects
{
  GMutex lock;                  /* guards everything below */
  GPtrArray *elements;          /* GpuprofElement*, index = id - 1 */
  GPtrArray *pads;              /* GpuprofPad*, index = id - 1 */
  GPtrArray *pipelines;         /* GpuprofPipeline* */
  GpuprofElementInitFunc element_init;
  GpuprofPadInitFunc pad_init;
  gpointer init_data;
};

static void
element_free (GpuprofElement * e)
{
  g_ptr_array_unref (e->pads);
  if (e->queues)
    g_ptr_array_free (e->queues, TRUE);
  g_free (e->path);
  g_free (e->factory);
  g_free (e);
}

static void
pad_free (GpuprofPad * p)
{
  g_free (p->name);
  g_free (p);
}

static void
pipeline_free (GpuprofPipeline * p)
{
  g_free (p->name);
  g_free (p);
}

GpuprofObjects *
gpuprof_objects_new (GpuprofElementInitFunc element_init,
    GpuprofPadInitFunc pad_init, gpointer user_data)
{
  GpuprofObjects *o = g_new0 (GpuprofObjects, 1);

  if (!pad_quark) {
    pad_quark = g_quark_from_static_string ("gpuprof-pad");
    element_quark = g_quark_from_static_string ("gpuprof-element");
    pipeline_quark = g_quark_from_static_string ("gpuprof-pipeline");
  }
  g_mutex_init (&o->lock);
  o->elements = g_ptr_array_new_with_free_func ((GDestroyNotify) element_free);
  o->pads = g_ptr_array_new_with_free_func ((GDestroyNotify) pad_free);
  o->pipelines =
      g_ptr_array_new_with_free_func ((GDestroyNotify) pipeline_free);
  o->element_init = element_init;
  o->pad_init = pad_init;
  o->init_data = user_data;
  return o;
}

void
gpuprof_objects_free (GpuprofObjects * o)
{
  /* only at gst_deinit: no object that carries our qdata is used again */
  g_ptr_array_unref (o->pads);
  g_ptr_array_unref (o->elements);
  g_ptr_array_unref (o->pipelines);
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
  GST_OBJECT_LOCK (element);
  n_sinkpads = element->numsinkpads;
  n_srcpads = element->numsrcpads;
  GST_OBJECT_UNLOCK (element);
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

static gboolean
waits_on_clock (GstElement * element)
{
  if (GST_IS_BASE_SINK (element))
    return gst_base_sink_get_sync (GST_BASE_SINK (element));
  if (GST_IS_BASE_SRC (element))
    return gst_base_src_is_live (GST_BASE_SRC (element));
  return FALSE;
}

/* Muxers and aggregators push from a task of their own: the threads that
 * feed them only hand over buffers (and wait for room). */
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

/* "pipeline0/bin/infer"; also returns the top-level ancestor (reffed) */
static gchar *
path_of (GstElement * element, GstObject ** top)
{
  GString *path = g_string_new (NULL);
  GstObject *obj = gst_object_ref (GST_OBJECT (element));

  for (;;) {
    gchar *name = gst_object_get_name (obj);
    GstObject *parent = gst_object_get_parent (obj);

    g_string_prepend (path, name ? name : "?");
    g_free (name);
    if (!parent) {
      *top = obj;
      break;
    }
    g_string_prepend_c (path, '/');
    gst_object_unref (obj);
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
  p->id = o->pipelines->len + 1;
  p->name = gst_object_get_name (top);
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

/* lock held */
static GpuprofElement *
element_locked (GpuprofObjects * o, GstElement * element)
{
  GpuprofElement *e = g_object_get_qdata (G_OBJECT (element), element_quark);
  GstElementFactory *factory;
  GstObject *top = NULL;

  if (e)
    return e;
  e = g_new0 (GpuprofElement, 1);
  e->id = o->elements->len + 1;
  e->path = path_of (element, &top);
  factory = gst_element_get_factory (element);
  e->factory = g_strdup (factory ? GST_OBJECT_NAME (factory) : "");
  e->role = role_of (element, e->factory);
  e->element = element;
  e->color = color_of (e->path);
  e->waits_on_clock = waits_on_clock (element);
  e->task_pushes = pushes_from_own_task (element, e->role);
  e->pipeline = pipeline_locked (o, top);
  e->pads = g_ptr_array_new ();
  gst_object_unref (top);
  if (e->role == GPUPROF_ROLE_QUEUE)
    e->queues = g_ptr_array_new_with_free_func ((GDestroyNotify)
        gpuprof_queue_free);
  g_ptr_array_add (o->elements, e);
  g_object_set_qdata (G_OBJECT (element), element_quark, e);
  if (o->element_init)
    o->element_init (e, o->init_data);
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

GpuprofElement *
gpuprof_objects_element_peek (GstElement * element)
{
  return element_quark ? g_object_get_qdata (G_OBJECT (element),
      element_quark) : NULL;
}

/* multiqueue pairs sink_N with src_N */
static guint
pad_index (const gchar * name)
{
  const gchar *us = strrchr (name, '_');

  return us ? (guint) strtoul (us + 1, NULL, 10) : 0;
}

/* lock held */
static GpuprofQueue *
queue_locked (GpuprofElement * e, guint index)
{
  guint i;
  GpuprofQueue *q;

  for (i = 0; i < e->queues->len; i++) {
    q = g_ptr_array_index (e->queues, i);
    if (q->index == index)
      return q;
  }
  q = gpuprof_queue_new (e, index);
  g_ptr_array_add (e->queues, q);
  return q;
}

/* Stands for a pad that has no parent yet (a demuxer pushes sticky events on
 * a pad before adding it): not registered, so the pad is looked at again
 * once it belongs to its element. */
static GpuprofPad orphan_pad = { 0, (gchar *) "", GST_PAD_UNKNOWN };

GpuprofPad *
gpuprof_objects_pad_slow (GpuprofObjects * o, GpuprofThread * t, GstPad * pad)
{
  GpuprofPad *p = g_object_get_qdata (G_OBJECT (pad), pad_quark);
  guint slot = gpuprof_objects_cache_slot (pad);
  GstObject *parent;

  if (!p) {
    parent = gst_pad_get_parent (pad);
    if (!parent)
      return &orphan_pad;
    g_mutex_lock (&o->lock);
    p = g_object_get_qdata (G_OBJECT (pad), pad_quark);
    if (!p) {
      p = g_new0 (GpuprofPad, 1);
      p->id = o->pads->len + 1;
      p->name = gst_pad_get_name (pad);
      p->direction = GST_PAD_DIRECTION (pad);
      /* ghost and proxy pads only forward: the real pads carry the work */
      if (GST_IS_ELEMENT (parent) && !GST_IS_PROXY_PAD (pad)) {
        p->element = element_locked (o, GST_ELEMENT_CAST (parent));
        g_ptr_array_add (p->element->pads, p);
        if (p->element->queues)
          p->queue = queue_locked (p->element, pad_index (p->name));
      }
      g_ptr_array_add (o->pads, p);
      g_object_set_qdata (G_OBJECT (pad), pad_quark, p);
      if (p->element && o->pad_init)
        o->pad_init (p, o->init_data);
    }
    g_mutex_unlock (&o->lock);
    gst_object_unref (parent);
  }
  t->cache[slot].key = pad;
  t->cache[slot].pad = p;
  return p;
}

void
gpuprof_objects_destroyed (GpuprofObjects * o, GstObject * object)
{
  g_mutex_lock (&o->lock);
  if (GST_IS_PAD (object)) {
    GpuprofPad *p = g_object_get_qdata (G_OBJECT (object), pad_quark);
    /* the address may be reused by a new pad: drop it from every cache */
    if (p)
      g_atomic_int_inc (&gpuprof_objects_generation);
  } else if (GST_IS_ELEMENT (object)) {
    GpuprofElement *e = g_object_get_qdata (G_OBJECT (object), element_quark);
    GpuprofPipeline *p = g_object_get_qdata (G_OBJECT (object),
        pipeline_quark);
    if (e)
      e->element = NULL;
    if (p)
      p->element = NULL;
  }
  g_mutex_unlock (&o->lock);
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
  for (i = 0; i < o->pipelines->len; i++)
    g_ptr_array_add (copy, g_ptr_array_index (o->pipelines, i));
  g_mutex_unlock (&o->lock);
  return copy;
}

GpuprofElement *
gpuprof_objects_element_by_id (GpuprofObjects * o, guint32 id)
{
  GpuprofElement *e = NULL;

  g_mutex_lock (&o->lock);
  if (id >= 1 && id <= o->elements->len)
    e = g_ptr_array_index (o->elements, id - 1);
  g_mutex_unlock (&o->lock);
  return e;
}

GpuprofPad *
gpuprof_objects_pad_by_id (GpuprofObjects * o, guint32 id)
{
  GpuprofPad *p = NULL;

  g_mutex_lock (&o->lock);
  if (id >= 1 && id <= o->pads->len)
    p = g_ptr_array_index (o->pads, id - 1);
  g_mutex_unlock (&o->lock);
  return p;
}

/* Roles and clock waits can change after first sight (request pads added,
 * sync or is-live set late): refresh from the elements still alive. */
void
gpuprof_objects_refresh_roles (GpuprofObjects * o)
{
  guint i;

  g_mutex_lock (&o->lock);
  for (i = 0; i < o->elements->len; i++) {
    GpuprofElement *e = g_ptr_array_index (o->elements, i);
    if (!e->element)
      continue;
    e->role = role_of (e->element, e->factory);
    e->waits_on_clock = waits_on_clock (e->element);
  }
  g_mutex_unlock (&o->lock);
}

/* Buffers in and out of an element in this run: the sequence numbers of its
 * sink and src pads (a pull advances the upstream src pad's), plus what it
 * pulled in, counted in its stats. */
void
gpuprof_objects_buffer_counts (GpuprofObjects * o, GpuprofElement * e,
    guint64 * in, guint64 * out)
{
  guint i;

  *in = __atomic_load_n (&e->stats.buffers_in, __ATOMIC_RELAXED);
  *out = 0;
  g_mutex_lock (&o->lock);
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

/* A new run counts from here; nothing streams at NULL. */
void
gpuprof_objects_new_run (GpuprofObjects * o, GpuprofElement * e)
{
  guint i;

  g_mutex_lock (&o->lock);
  for (i = 0; i < e->pads->len; i++) {
    GpuprofPad *p = g_ptr_array_index (e->pads, i);
    p->seq_base = __atomic_load_n (&p->seq, __ATOMIC_RELAXED);
  }
  g_mutex_unlock (&o->lock);
}
