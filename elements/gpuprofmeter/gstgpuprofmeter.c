/* gpuprofmeter: per-buffer GPU cost of the upstream elements, in-band.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-gpuprofmeter
 * @title: gpuprofmeter
 *
 * A pass-through element (in place, no copy) placed after GPU stages that
 * measures, for every buffer, the GPU time its upstream elements spent on it
 * — kernels, copies and memsets recorded by CUPTI — and posts it on the bus.
 * It needs no GST_TRACERS.
 *
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=300 ! cudaupload ! cudaconvert !
 *     cudascale ! cudadownload ! gpuprofmeter ! fakesink
 * ]|
 *
 * ## How it correlates
 * When it goes to PAUSED (and again at its first buffer, for pads linked
 * late) it walks upstream from its sink pad, through ghost pads, and wraps
 * the chain and chain-list functions of every upstream element's sink pads:
 * around each call the wrapper pushes a CUPTI external correlation id
 * encoding (element, PTS of the input buffer) on its own id stack
 * (external kind CUSTOM1, apart from the gpuprof tracer's CUSTOM0). So every
 * kernel, copy and memset launched inside that chain call is attributed to
 * that element and that buffer, though it runs later. When the meter's
 * buffer with PTS p passes, its message sums, per upstream element, the work
 * pushed under p.
 *
 * ## Message
 * An element message named "gpuprofmeter", posted once CUPTI has delivered
 * the records — `delay` after the buffer passed, from the CUPTI collector
 * thread or from the meter's next buffers, never blocking the stream — one
 * every `interval` buffers, summing those buffers. All remaining messages are
 * posted before EOS goes downstream. Fields:
 *
 * - `sequence` (G_TYPE_UINT64): number of the last buffer of the interval at
 *   the meter, from 0
 * - `buffers` (G_TYPE_UINT): buffers summed (the interval, fewer at EOS)
 * - `pts` (G_TYPE_UINT64, a #GstClockTime): PTS of that buffer
 * - `gpu-ns` (G_TYPE_UINT64): GPU ns over all upstream elements (kernels +
 *   copies + memsets; the sum of durations, overlaps counted twice)
 * - `kernels`, `copies`, `memsets` (G_TYPE_UINT64): operation counts
 * - `bytes` (G_TYPE_UINT64): bytes copied
 * - `elements` (GST_TYPE_ARRAY of #GstStructure named "element"), one per
 *   upstream element, nearest first, with `name` (G_TYPE_STRING, the
 *   element's name), `gpu-ns`, `kernel-ns`, `copy-ns`, `memset-ns`,
 *   `kernels`, `copies`, `memsets`, `bytes`, `memset-bytes` (all
 *   G_TYPE_UINT64)
 *
 * ## Meta
 * With `attach-meta`, each buffer gets a #GpuprofGpuMeta
 * (gpuprof-meter-meta.h) with the same figures for that buffer. To have them
 * when the buffer passes, the meter flushes CUPTI synchronously at each
 * buffer: the figures are complete only where the upstream GPU work has
 * finished when the buffer reaches the meter (after cudadownload or another
 * element that synchronises the GPU).
 *
 * ## Without a GPU
 * Buffers pass unchanged, no gpuprofmeter message is posted, and one warning
 * message says why there are no GPU figures.
 *
 * ## Limits
 * - Attribution is by the PTS of each element's input buffer: exact for
 *   elements whose output carries the PTS of the input that caused the work
 *   (converters, scalers, filters, decoders). Work of elements upstream of a
 *   batching muxer (whose output PTS is not its inputs') is in the element's
 *   totals but in no message. Buffers with no PTS use their DTS, else no key.
 * - Work launched outside a chain call (an element's private threads, a
 *   source's loop) is not per buffer and is not in the messages.
 * - An element that replaces its sink pad's chain function while playing
 *   drops the wrapper.
 * - GPU work still running `delay` after the buffer passed is missed in its
 *   message (it is counted in later figures of the gpuprof tracer).
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstgpuprofmeter.h"
#include "gpuprof-clock.h"
#include "gpuprof-cupti.h"
#include "gpuprof-gpu.h"
#include "gpuprof-meter-meta.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gpuprof_meter_debug);
#define GST_CAT_DEFAULT gpuprof_meter_debug

#define DEFAULT_INTERVAL 1
#define DEFAULT_ATTACH_META FALSE
#define DEFAULT_DELAY (250 * GST_MSECOND)
#define MAX_UPSTREAM 64

enum
{
  PROP_0,
  PROP_INTERVAL,
  PROP_ATTACH_META,
  PROP_DELAY,
};

/* per wrapped sink pad, kept on the pad until it is finalized, so a chain
 * call in progress while the wrapper is removed never sees freed memory */
typedef struct
{
  GstPadChainFunction chain;
  GstPadChainListFunction chain_list;
  guint32 element_id;
  gint users;                   /* meters that want it wrapped; wrap_lock */
} WrapInfo;

typedef struct
{
  gchar *name;
  guint32 element_id;
} Upstream;

typedef struct
{
  guint64 seq;
  guint64 pts;
  guint64 key;
  guint64 arrival;              /* monotonic ns when it passed */
} PendingBuffer;

struct _GstGpuprofMeter
{
  GstBaseTransform parent;

  /* properties, object lock */
  guint interval;
  gboolean attach_meta;
  guint64 delay;

  /* streaming state */
  gboolean gpu_on;
  gboolean warned;
  gboolean rewalked;
  guint listener;

  GMutex lock;                  /* guards what follows */
  GArray *upstream;             /* Upstream, nearest first */
  GPtrArray *wrapped_pads;      /* GstPad refs */
  GQueue pending;               /* PendingBuffer */
  guint64 seq;                  /* buffers seen */
  guint acc_buffers;
  GpuprofGpuCost *acc;          /* per upstream element, upstream->len */
  guint acc_len;
};

#define gst_gpuprof_meter_parent_class parent_class
G_DEFINE_TYPE (GstGpuprofMeter, gst_gpuprof_meter, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (gpuprofmeter, "gpuprofmeter", GST_RANK_NONE,
    GST_TYPE_GPUPROF_METER);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static GMutex wrap_lock;
static GQuark wrap_quark;
static gint meters_on;          /* wrap_lock */

/* ---- element ids on the meter channel ---- */

/* The meter has no object ids of its own: ids by element path, the same
 * path always the same id, for all meters of the process (kept for it). */
static GMutex names_lock;
static GPtrArray *names;        /* paths, id = index + 1; names_lock */
static GHashTable *name_ids;    /* path -> id; names_lock */

static guint32
register_name (const gchar * name)
{
  gpointer id;

  g_mutex_lock (&names_lock);
  if (!names) {
    names = g_ptr_array_new_with_free_func (g_free);
    name_ids = g_hash_table_new (g_str_hash, g_str_equal);
  }
  id = g_hash_table_lookup (name_ids, name);
  if (!id) {
    gchar *copy = g_strdup (name);
    g_ptr_array_add (names, copy);
    id = GUINT_TO_POINTER (names->len);
    g_hash_table_insert (name_ids, copy, id);
  }
  g_mutex_unlock (&names_lock);
  return GPOINTER_TO_UINT (id);
}

/* a GpuprofGpuPathFunc for the meter channel */
static gchar *
registered_name (guint32 element_id, gpointer unused)
{
  gchar *name = NULL;

  g_mutex_lock (&names_lock);
  if (names && element_id >= 1 && element_id <= names->len)
    name = g_strdup (g_ptr_array_index (names, element_id - 1));
  g_mutex_unlock (&names_lock);
  return name;
}

/* ---- chain wrappers (upstream streaming threads) ---- */

static inline guint64
buffer_key (GstBuffer * buf)
{
  GstClockTime t = GST_BUFFER_PTS (buf);

  if (!GST_CLOCK_TIME_IS_VALID (t))
    t = GST_BUFFER_DTS (buf);
  if (!GST_CLOCK_TIME_IS_VALID (t))
    return GPUPROF_GPU_SEQ_NONE;
  t &= GPUPROF_GPU_SEQ_MASK;
  return t == GPUPROF_GPU_SEQ_NONE ? 0 : t;
}

static GstFlowReturn
wrapped_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  WrapInfo *w = g_object_get_qdata (G_OBJECT (pad), wrap_quark);
  GstFlowReturn ret;

  gpuprof_gpu_channel_enter (GPUPROF_GPU_CHANNEL_METER, w->element_id,
      buffer_key (buf));
  ret = w->chain (pad, parent, buf);
  gpuprof_gpu_channel_exit (GPUPROF_GPU_CHANNEL_METER);
  return ret;
}

static GstFlowReturn
wrapped_chain_list (GstPad * pad, GstObject * parent, GstBufferList * list)
{
  WrapInfo *w = g_object_get_qdata (G_OBJECT (pad), wrap_quark);
  guint64 key = GPUPROF_GPU_SEQ_NONE;
  GstFlowReturn ret;

  if (gst_buffer_list_length (list) > 0)
    key = buffer_key (gst_buffer_list_get (list, 0));
  gpuprof_gpu_channel_enter (GPUPROF_GPU_CHANNEL_METER, w->element_id, key);
  ret = w->chain_list (pad, parent, list);
  gpuprof_gpu_channel_exit (GPUPROF_GPU_CHANNEL_METER);
  return ret;
}

/* ---- finding and wrapping the upstream elements ---- */

static gboolean
wrap_pad (GstPad * pad, guint32 element_id)
{
  WrapInfo *w;

  g_mutex_lock (&wrap_lock);
  w = g_object_get_qdata (G_OBJECT (pad), wrap_quark);
  if (!w) {
    w = g_new0 (WrapInfo, 1);
    g_object_set_qdata_full (G_OBJECT (pad), wrap_quark, w, g_free);
  }
  if (w->users++ == 0) {
    w->element_id = element_id;
    w->chain = GST_PAD_CHAINFUNC (pad);
    w->chain_list = GST_PAD_CHAINLISTFUNC (pad);
    /* pointer stores: a chain call already running keeps the old one */
    if (w->chain)
      GST_PAD_CHAINFUNC (pad) = wrapped_chain;
    if (w->chain_list)
      GST_PAD_CHAINLISTFUNC (pad) = wrapped_chain_list;
  }
  g_mutex_unlock (&wrap_lock);
  return TRUE;
}

static void
unwrap_pad (GstPad * pad)
{
  WrapInfo *w;

  g_mutex_lock (&wrap_lock);
  w = g_object_get_qdata (G_OBJECT (pad), wrap_quark);
  if (w && w->users > 0 && --w->users == 0) {
    /* leave it if the element installed another function meanwhile */
    if (GST_PAD_CHAINFUNC (pad) == wrapped_chain)
      GST_PAD_CHAINFUNC (pad) = w->chain;
    if (GST_PAD_CHAINLISTFUNC (pad) == wrapped_chain_list)
      GST_PAD_CHAINLISTFUNC (pad) = w->chain_list;
  }
  g_mutex_unlock (&wrap_lock);
}

/* the element pad at the other end of @sinkpad's link, through ghost pads */
static GstPad *
real_peer (GstPad * sinkpad)
{
  GstPad *peer = gst_pad_get_peer (sinkpad);

  while (peer && GST_IS_GHOST_PAD (peer)) {
    GstPad *target = gst_ghost_pad_get_target (GST_GHOST_PAD (peer));
    gst_object_unref (peer);
    peer = target;
  }
  return peer;
}

static gboolean
upstream_known (GstGpuprofMeter * self, guint32 id)
{
  guint i;

  for (i = 0; i < self->upstream->len; i++)
    if (g_array_index (self->upstream, Upstream, i).element_id == id)
      return TRUE;
  return FALSE;
}

/* Breadth first, so the list is nearest first. Called with self->lock. */
static void
walk_upstream_locked (GstGpuprofMeter * self)
{
  GQueue todo = G_QUEUE_INIT;
  GstPad *own = GST_BASE_TRANSFORM_SINK_PAD (self);

  g_queue_push_tail (&todo, gst_object_ref (own));
  while (!g_queue_is_empty (&todo)) {
    GstPad *sink = g_queue_pop_head (&todo);
    GstPad *peer = real_peer (sink);
    GstElement *el = peer ? gst_pad_get_parent_element (peer) : NULL;

    if (el && self->upstream->len < MAX_UPSTREAM) {
      gchar *path = gst_object_get_path_string (GST_OBJECT (el));
      guint32 id = register_name (path);
      g_free (path);
      if (!upstream_known (self, id)) {
        Upstream u = { gst_object_get_name (GST_OBJECT (el)), id };
        GstIterator *it = gst_element_iterate_sink_pads (el);
        GValue v = G_VALUE_INIT;

        g_array_append_val (self->upstream, u);
        while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
          GstPad *p = g_value_get_object (&v);
          if (wrap_pad (p, id))
            g_ptr_array_add (self->wrapped_pads, gst_object_ref (p));
          g_queue_push_tail (&todo, gst_object_ref (p));
          g_value_reset (&v);
        }
        g_value_unset (&v);
        gst_iterator_free (it);
      }
    }
    if (el)
      gst_object_unref (el);
    if (peer)
      gst_object_unref (peer);
    gst_object_unref (sink);
  }

  if (self->acc_len != self->upstream->len) {
    self->acc = g_renew (GpuprofGpuCost, self->acc, self->upstream->len);
    memset (self->acc + self->acc_len, 0,
        (self->upstream->len - self->acc_len) * sizeof (GpuprofGpuCost));
    self->acc_len = self->upstream->len;
  }
  GST_DEBUG_OBJECT (self, "%u upstream elements wrapped", self->upstream->len);
}

static void
unwrap_all_locked (GstGpuprofMeter * self)
{
  guint i;

  for (i = 0; i < self->wrapped_pads->len; i++)
    unwrap_pad (g_ptr_array_index (self->wrapped_pads, i));
  g_ptr_array_set_size (self->wrapped_pads, 0);
  for (i = 0; i < self->upstream->len; i++)
    g_free (g_array_index (self->upstream, Upstream, i).name);
  g_array_set_size (self->upstream, 0);
  g_clear_pointer (&self->acc, g_free);
  self->acc_len = 0;
}

/* ---- messages ---- */

static void
cost_sum (GpuprofGpuCost * a, const GpuprofGpuCost * b)
{
  a->kernel_ns += b->kernel_ns;
  a->copy_ns += b->copy_ns;
  a->memset_ns += b->memset_ns;
  a->kernels += b->kernels;
  a->copies += b->copies;
  a->memsets += b->memsets;
  a->copy_bytes += b->copy_bytes;
  a->memset_bytes += b->memset_bytes;
}

static GstStructure *
element_structure (const gchar * name, const GpuprofGpuCost * c)
{
  return gst_structure_new ("element",
      "name", G_TYPE_STRING, name,
      "gpu-ns", G_TYPE_UINT64, gpuprof_gpu_cost_ns (c),
      "kernel-ns", G_TYPE_UINT64, c->kernel_ns,
      "copy-ns", G_TYPE_UINT64, c->copy_ns,
      "memset-ns", G_TYPE_UINT64, c->memset_ns,
      "kernels", G_TYPE_UINT64, c->kernels,
      "copies", G_TYPE_UINT64, c->copies,
      "memsets", G_TYPE_UINT64, c->memsets,
      "bytes", G_TYPE_UINT64, c->copy_bytes,
      "memset-bytes", G_TYPE_UINT64, c->memset_bytes, NULL);
}

/* The one constructor of the message; called with self->lock. */
static GstMessage *
build_message_locked (GstGpuprofMeter * self, const PendingBuffer * last)
{
  GpuprofGpuCost total = { 0, };
  GValue arr = G_VALUE_INIT, v = G_VALUE_INIT;
  GstStructure *s;
  guint i;

  g_value_init (&arr, GST_TYPE_ARRAY);
  for (i = 0; i < self->acc_len; i++) {
    Upstream *u = &g_array_index (self->upstream, Upstream, i);
    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, element_structure (u->name, &self->acc[i]));
    gst_value_array_append_and_take_value (&arr, &v);
    memset (&v, 0, sizeof (v));
    cost_sum (&total, &self->acc[i]);
  }
  s = gst_structure_new ("gpuprofmeter",
      "sequence", G_TYPE_UINT64, last->seq,
      "buffers", G_TYPE_UINT, self->acc_buffers,
      "pts", G_TYPE_UINT64, last->pts,
      "gpu-ns", G_TYPE_UINT64, gpuprof_gpu_cost_ns (&total),
      "kernels", G_TYPE_UINT64, total.kernels,
      "copies", G_TYPE_UINT64, total.copies,
      "memsets", G_TYPE_UINT64, total.memsets,
      "bytes", G_TYPE_UINT64, total.copy_bytes, NULL);
  gst_structure_take_value (s, "elements", &arr);
  memset (self->acc, 0, self->acc_len * sizeof (GpuprofGpuCost));
  self->acc_buffers = 0;
  return gst_message_new_element (GST_OBJECT (self), s);
}

/* Collects the messages of buffers whose records are settled (all of them
 * with @all); posts them after the lock is released. */
static void
post_ready (GstGpuprofMeter * self, gboolean all)
{
  GSList *msgs = NULL, *l;
  guint64 settled = gpuprof_gpu_settled_arrival ();
  guint interval, i;
  guint64 delay;

  GST_OBJECT_LOCK (self);
  interval = MAX (self->interval, 1);
  delay = self->delay;
  GST_OBJECT_UNLOCK (self);

  g_mutex_lock (&self->lock);
  while (!g_queue_is_empty (&self->pending)) {
    PendingBuffer *p = g_queue_peek_head (&self->pending);
    if (!all && p->arrival + delay > settled)
      break;
    g_queue_pop_head (&self->pending);
    for (i = 0; i < self->acc_len; i++) {
      GpuprofGpuCost c;
      Upstream *u = &g_array_index (self->upstream, Upstream, i);
      if (p->key != GPUPROF_GPU_SEQ_NONE &&
          gpuprof_gpu_get_buffer_cost (GPUPROF_GPU_CHANNEL_METER,
              u->element_id, p->key, &c))
        cost_sum (&self->acc[i], &c);
    }
    self->acc_buffers++;
    if (self->acc_buffers >= interval ||
        (all && g_queue_is_empty (&self->pending)))
      msgs = g_slist_prepend (msgs, build_message_locked (self, p));
    g_free (p);
  }
  g_mutex_unlock (&self->lock);

  msgs = g_slist_reverse (msgs);
  for (l = msgs; l; l = l->next)
    gst_element_post_message (GST_ELEMENT (self), l->data);
  g_slist_free (msgs);
}

static void
on_settled (gpointer user_data)
{
  post_ready (GST_GPUPROF_METER (user_data), FALSE);
}

/* ---- GPU on / off ---- */

static void
gpu_start (GstGpuprofMeter * self)
{
  static const GpuprofGpuListener listener = { NULL, on_settled };
  GpuprofCuptiSettings settings = { GPUPROF_CUPTI_AUTO, NULL, 0, 0 };
  gchar *reason = NULL;

  self->gpu_on = gpuprof_cupti_start (&settings, &reason);
  if (!self->gpu_on) {
    if (!self->warned) {
      /* the one line saying why there are no figures */
      GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
          ("No GPU figures from gpuprofmeter"), ("%s", reason));
      self->warned = TRUE;
    }
    g_free (reason);
    return;
  }
  g_mutex_lock (&wrap_lock);
  if (meters_on++ == 0) {
    gpuprof_gpu_set_path_func (GPUPROF_GPU_CHANNEL_METER, registered_name,
        NULL);
    gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_METER, TRUE);
  }
  g_mutex_unlock (&wrap_lock);

  g_mutex_lock (&self->lock);
  walk_upstream_locked (self);
  g_mutex_unlock (&self->lock);
  self->rewalked = FALSE;
  self->listener = gpuprof_gpu_add_listener (GPUPROF_GPU_CHANNEL_METER,
      &listener, self);
}

static void
gpu_stop (GstGpuprofMeter * self)
{
  if (!self->gpu_on)
    return;
  gpuprof_gpu_remove_listener (self->listener);
  self->listener = 0;
  g_mutex_lock (&self->lock);
  unwrap_all_locked (self);
  while (!g_queue_is_empty (&self->pending))
    g_free (g_queue_pop_head (&self->pending));
  g_mutex_unlock (&self->lock);

  g_mutex_lock (&wrap_lock);
  if (--meters_on == 0)
    gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_METER, FALSE);
  g_mutex_unlock (&wrap_lock);
  gpuprof_cupti_stop ();
  self->gpu_on = FALSE;
}

/* ---- GstBaseTransform ---- */

static void
attach_meta (GstGpuprofMeter * self, GstBuffer * buf, guint64 seq,
    guint64 key)
{
  GpuprofGpuMeta *meta;
  guint i;

  /* completed buffers only; joined records settle at once */
  gpuprof_cupti_flush (FALSE);
  meta = gpuprof_buffer_add_gpu_meta (buf);
  meta->sequence = seq;
  g_mutex_lock (&self->lock);
  for (i = 0; i < self->upstream->len; i++) {
    Upstream *u = &g_array_index (self->upstream, Upstream, i);
    GpuprofGpuCost c;
    if (key == GPUPROF_GPU_SEQ_NONE ||
        !gpuprof_gpu_get_buffer_cost (GPUPROF_GPU_CHANNEL_METER,
            u->element_id, key, &c))
      memset (&c, 0, sizeof (c));
    if (meta->n_elements < GPUPROF_GPU_META_MAX_ELEMENTS) {
      meta->elements[meta->n_elements].name = g_quark_from_string (u->name);
      meta->elements[meta->n_elements].cost = c;
      meta->n_elements++;
    }
    cost_sum (&meta->total, &c);
  }
  g_mutex_unlock (&self->lock);
}

static GstFlowReturn
gst_gpuprof_meter_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstGpuprofMeter *self = GST_GPUPROF_METER (trans);
  PendingBuffer *p;
  gboolean meta;

  if (!self->gpu_on)
    return GST_FLOW_OK;

  if (G_UNLIKELY (!self->rewalked)) {
    /* pads linked after PAUSED (demuxers, decodebin) are there now */
    g_mutex_lock (&self->lock);
    walk_upstream_locked (self);
    g_mutex_unlock (&self->lock);
    self->rewalked = TRUE;
  }

  p = g_new (PendingBuffer, 1);
  p->pts = GST_BUFFER_PTS (buf);
  p->key = buffer_key (buf);
  p->arrival = gpuprof_clock_monotonic_ns ();
  g_mutex_lock (&self->lock);
  p->seq = self->seq++;
  g_queue_push_tail (&self->pending, p);
  g_mutex_unlock (&self->lock);

  GST_OBJECT_LOCK (self);
  meta = self->attach_meta;
  GST_OBJECT_UNLOCK (self);
  if (meta)
    attach_meta (self, buf, p->seq, p->key);

  post_ready (self, FALSE);
  return GST_FLOW_OK;
}

static gboolean
gst_gpuprof_meter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstGpuprofMeter *self = GST_GPUPROF_METER (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->gpu_on) {
    /* every record in, every message out, before EOS reaches the sink */
    gpuprof_cupti_flush (TRUE);
    post_ready (self, TRUE);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static GstStateChangeReturn
gst_gpuprof_meter_change_state (GstElement * element,
    GstStateChange transition)
{
  GstGpuprofMeter *self = GST_GPUPROF_METER (element);
  GstStateChangeReturn ret;

  /* sinks change state first: upstream does not stream yet at READY->PAUSED */
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    g_mutex_lock (&self->lock);
    self->seq = 0;
    self->acc_buffers = 0;
    g_mutex_unlock (&self->lock);
    gpu_start (self);
  }

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    gpu_stop (self);
  return ret;
}

static void
update_passthrough (GstGpuprofMeter * self)
{
  gboolean meta;

  GST_OBJECT_LOCK (self);
  meta = self->attach_meta;
  GST_OBJECT_UNLOCK (self);
  /* a meta needs a writable buffer; in place, so usually no copy */
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), !meta);
}

static void
gst_gpuprof_meter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstGpuprofMeter *self = GST_GPUPROF_METER (object);

  switch (prop_id) {
    case PROP_INTERVAL:
      GST_OBJECT_LOCK (self);
      self->interval = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    case PROP_ATTACH_META:
      GST_OBJECT_LOCK (self);
      self->attach_meta = g_value_get_boolean (value);
      GST_OBJECT_UNLOCK (self);
      update_passthrough (self);
      break;
    case PROP_DELAY:
      GST_OBJECT_LOCK (self);
      self->delay = g_value_get_uint64 (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_gpuprof_meter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstGpuprofMeter *self = GST_GPUPROF_METER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_INTERVAL:
      g_value_set_uint (value, self->interval);
      break;
    case PROP_ATTACH_META:
      g_value_set_boolean (value, self->attach_meta);
      break;
    case PROP_DELAY:
      g_value_set_uint64 (value, self->delay);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_gpuprof_meter_finalize (GObject * object)
{
  GstGpuprofMeter *self = GST_GPUPROF_METER (object);

  g_mutex_lock (&self->lock);
  unwrap_all_locked (self);
  while (!g_queue_is_empty (&self->pending))
    g_free (g_queue_pop_head (&self->pending));
  g_mutex_unlock (&self->lock);
  g_array_unref (self->upstream);
  g_ptr_array_unref (self->wrapped_pads);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_gpuprof_meter_class_init (GstGpuprofMeterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gpuprof_meter_debug, "gpuprofmeter", 0,
      "per-buffer GPU cost meter");
  wrap_quark = g_quark_from_static_string ("gpuprofmeter-wrap");
  gpuprof_gpu_meta_get_info ();        /* readers find the meta API by name */

  gobject_class->set_property = gst_gpuprof_meter_set_property;
  gobject_class->get_property = gst_gpuprof_meter_get_property;
  gobject_class->finalize = gst_gpuprof_meter_finalize;

  /**
   * GstGpuprofMeter:interval:
   *
   * Post one message every this many buffers, summing them.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint ("interval", "Interval",
          "Post one message every this many buffers, summing them", 1,
          G_MAXUINT, DEFAULT_INTERVAL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));

  /**
   * GstGpuprofMeter:attach-meta:
   *
   * Attach a #GpuprofGpuMeta with the buffer's GPU cost to each buffer,
   * flushing CUPTI synchronously at each buffer. Complete only where the
   * upstream GPU work has finished when the buffer arrives.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_ATTACH_META,
      g_param_spec_boolean ("attach-meta", "Attach meta",
          "Attach a GpuprofGpuMeta with the buffer's GPU cost (flushes CUPTI "
          "at each buffer)", DEFAULT_ATTACH_META,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));

  /**
   * GstGpuprofMeter:delay:
   *
   * How long after a buffer passes its message waits for CUPTI to deliver
   * the buffer's records, in ns.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_DELAY,
      g_param_spec_uint64 ("delay", "Delay",
          "How long after a buffer passes its message waits for CUPTI records "
          "(ns)", 0, G_MAXUINT64, DEFAULT_DELAY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "GPU profiling meter",
      "Filter/Analyzer", "Posts the GPU time (CUPTI kernels, copies, memsets) "
      "each upstream element spent per buffer",
      "the gpuprof authors");

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_gpuprof_meter_change_state);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_gpuprof_meter_transform_ip);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_gpuprof_meter_sink_event);
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = TRUE;
}

static void
gst_gpuprof_meter_init (GstGpuprofMeter * self)
{
  self->interval = DEFAULT_INTERVAL;
  self->attach_meta = DEFAULT_ATTACH_META;
  self->delay = DEFAULT_DELAY;
  g_mutex_init (&self->lock);
  self->upstream = g_array_new (FALSE, TRUE, sizeof (Upstream));
  self->wrapped_pads = g_ptr_array_new_with_free_func (gst_object_unref);
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
}
