/* gpuprofasync: chain queues, a worker thread does the planted work, an
 * output thread pushes (see gpuprof-test-async.h). */
#include "gpuprof-test-async.h"

#include <gst/check/gstcheck.h>

enum
{
  PROP_0,
  PROP_WORK_US,
  PROP_SPIN,
  PROP_MAX_IN_FLIGHT,
  PROP_COPY,
};

/* A buffer or a serialized event on its way; epoch is the flush
 * generation it belongs to: a flush bumps the element's, so whatever a
 * thread holds from before is dropped instead of pushed. */
typedef struct
{
  GstMiniObject *obj;
  guint epoch;
} Item;

typedef struct
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;

  guint work_us;
  gboolean spin;
  guint max_in_flight;
  gboolean copy;                /* push a new buffer, not the one received */

  GMutex lock;                  /* guards all below */
  GCond cond;
  GQueue in_q;                  /* Items for the worker */
  GQueue out_q;                 /* Items for the output thread */
  guint in_flight;              /* buffers chained, not yet pushed */
  guint epoch;
  gboolean flushing, stopping;
  GstFlowReturn last_ret;       /* of the output thread's last push */
  GThread *worker, *output;
  GpuprofTestAsyncTruth truth;
  GArray *self_per_call;        /* guint64 ns */
  GArray *pushed_pts;           /* GstClockTime */

  /* held by the output thread across a push, by flush-stop across its
   * reset: no buffer from before a flush is pushed after it */
  GMutex push_lock;
} GpuprofTestAsync;

typedef GstElementClass GpuprofTestAsyncClass;

GType gpuprof_test_async_get_type (void);
G_DEFINE_TYPE (GpuprofTestAsync, gpuprof_test_async, GST_TYPE_ELEMENT);

static void
item_free (Item * item)
{
  gst_mini_object_unref (item->obj);
  g_free (item);
}

/* Drops what is queued; lock held. */
static void
drop_queued (GpuprofTestAsync * self)
{
  Item *item;

  while ((item = g_queue_pop_head (&self->in_q))
      || (item = g_queue_pop_head (&self->out_q))) {
    if (GST_IS_BUFFER (item->obj))
      self->truth.dropped++;
    item_free (item);
  }
  self->in_flight = 0;
}

static void
record_work (GpuprofTestAsync * self, guint64 self_ns, guint64 incl_ns,
    guint64 cpu_ns)
{
  self->truth.work.calls++;
  self->truth.work.self_ns += self_ns;
  self->truth.work.incl_ns += incl_ns;
  self->truth.work.cpu_ns += cpu_ns;
  g_array_append_val (self->self_per_call, self_ns);
}

/* The planted cost, as gpuprofwork's: a sleep or a spin on the wall
 * clock. Returns its thread CPU time. */
static guint64
planted_work (guint work_us, gboolean spin)
{
  guint64 cpu0 = gpuprof_test_thread_cpu_ns ();

  if (spin) {
    guint64 end = gpuprof_test_now_ns () + work_us * GST_USECOND;
    while (gpuprof_test_now_ns () < end);
  } else if (work_us) {
    g_usleep (work_us);
  }
  return gpuprof_test_thread_cpu_ns () - cpu0;
}

static GpuprofTestAsyncWorkHook work_hook, output_hook;
static gpointer work_hook_data, output_hook_data;

void
gpuprof_test_async_set_work_hook (GpuprofTestAsyncWorkHook hook,
    gpointer user_data)
{
  work_hook = hook;
  work_hook_data = user_data;
}

void
gpuprof_test_async_set_output_hook (GpuprofTestAsyncWorkHook hook,
    gpointer user_data)
{
  output_hook = hook;
  output_hook_data = user_data;
}

static gpointer
worker_loop (gpointer data)
{
  guint64 worked = 0;

  GpuprofTestAsync *self = data;

  g_mutex_lock (&self->lock);
  self->truth.worker_thread = g_thread_self ();
  while (!self->stopping) {
    Item *item = g_queue_pop_head (&self->in_q);
    guint work_us = self->work_us;
    gboolean spin = self->spin, copy = self->copy;

    if (!item) {
      g_cond_wait (&self->cond, &self->lock);
      continue;
    }
    g_mutex_unlock (&self->lock);
    if (GST_IS_BUFFER (item->obj)) {
      guint64 t0 = gpuprof_test_now_ns (), t1, cpu;

      cpu = planted_work (work_us, spin);
      if (work_hook)
        work_hook (GST_ELEMENT (self), ++worked, work_hook_data);
      t1 = gpuprof_test_now_ns ();
      /* a non-in-place element: its output is a new buffer */
      if (copy) {
        GstMiniObject *out = GST_MINI_OBJECT (gst_buffer_copy_deep
            (GST_BUFFER (item->obj)));
        gst_mini_object_unref (item->obj);
        item->obj = out;
      }
      g_mutex_lock (&self->lock);
      record_work (self, t1 - t0, gpuprof_test_now_ns () - t0, cpu);
    } else {
      g_mutex_lock (&self->lock);
    }
    self->truth.worker_cpu_ns = gpuprof_test_thread_cpu_ns ();
    if (item->epoch == self->epoch) {
      g_queue_push_tail (&self->out_q, item);
      g_cond_broadcast (&self->cond);
    } else {
      if (GST_IS_BUFFER (item->obj))
        self->truth.dropped++;
      item_free (item);
    }
  }
  g_mutex_unlock (&self->lock);
  return NULL;
}

static gpointer
output_loop (gpointer data)
{
  GpuprofTestAsync *self = data;
  guint64 pushing = 0, pushed_cpu = 0;

  g_mutex_lock (&self->lock);
  self->truth.output_thread = g_thread_self ();
  while (!self->stopping) {
    Item *item = g_queue_pop_head (&self->out_q);
    GstFlowReturn ret = GST_FLOW_OK;
    GstClockTime pts = GST_CLOCK_TIME_NONE;
    guint64 push_ns = 0, loop_cpu = 0;
    gboolean current, is_buffer;

    if (!item) {
      g_cond_wait (&self->cond, &self->lock);
      continue;
    }
    g_mutex_unlock (&self->lock);

    g_mutex_lock (&self->push_lock);
    g_mutex_lock (&self->lock);
    current = item->epoch == self->epoch;
    g_mutex_unlock (&self->lock);
    is_buffer = GST_IS_BUFFER (item->obj);
    if (current && is_buffer) {
      guint64 t0, cpu0;

      if (output_hook)
        output_hook (GST_ELEMENT (self), ++pushing, output_hook_data);
      t0 = gpuprof_test_now_ns ();
      cpu0 = gpuprof_test_thread_cpu_ns ();
      /* the loop since the last push ended: the output thread's own work */
      if (pushed_cpu)
        loop_cpu = cpu0 - pushed_cpu;

      pts = GST_BUFFER_PTS (item->obj);
      ret = gst_pad_push (self->srcpad, GST_BUFFER (item->obj));
      pushed_cpu = gpuprof_test_thread_cpu_ns ();
      push_ns = gpuprof_test_now_ns () - t0;
      item->obj = NULL;
    } else if (current) {
      gst_pad_push_event (self->srcpad, GST_EVENT (item->obj));
      item->obj = NULL;
    }
    g_mutex_unlock (&self->push_lock);

    g_mutex_lock (&self->lock);
    if (is_buffer && current && item->epoch == self->epoch) {
      self->in_flight--;
      self->truth.pushed++;
      self->truth.work.push_ns += push_ns;
      self->truth.output_cpu_ns += loop_cpu;
      g_array_append_val (self->pushed_pts, pts);
      if (ret != GST_FLOW_OK)
        self->last_ret = ret;
    } else if (is_buffer) {
      self->truth.dropped++;
    }
    g_cond_broadcast (&self->cond);
    if (item->obj)
      gst_mini_object_unref (item->obj);
    g_free (item);
  }
  g_mutex_unlock (&self->lock);
  return NULL;
}

static GstFlowReturn
async_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GpuprofTestAsync *self = (GpuprofTestAsync *) parent;
  guint64 cpu0 = gpuprof_test_thread_cpu_ns ();
  GstFlowReturn ret;
  Item *item;

  g_mutex_lock (&self->lock);
  self->truth.chained++;
  if (!self->flushing && self->in_flight >= self->max_in_flight) {
    guint64 t0 = gpuprof_test_now_ns ();

    self->truth.chain_waits++;
    self->truth.chain_waiting = TRUE;
    while (!self->flushing && self->in_flight >= self->max_in_flight)
      g_cond_wait (&self->cond, &self->lock);
    self->truth.chain_waiting = FALSE;
    self->truth.chain_wait_ns += gpuprof_test_now_ns () - t0;
  }
  ret = self->flushing ? GST_FLOW_FLUSHING : self->last_ret;
  if (ret != GST_FLOW_OK) {
    self->truth.dropped++;
    self->truth.chain_cpu_ns += gpuprof_test_thread_cpu_ns () - cpu0;
    g_mutex_unlock (&self->lock);
    gst_buffer_unref (buf);
    return ret;
  }
  item = g_new (Item, 1);
  item->obj = GST_MINI_OBJECT (buf);
  item->epoch = self->epoch;
  g_queue_push_tail (&self->in_q, item);
  self->in_flight++;
  self->truth.max_in_flight_seen =
      MAX (self->truth.max_in_flight_seen, self->in_flight);
  g_cond_broadcast (&self->cond);
  self->truth.chain_cpu_ns += gpuprof_test_thread_cpu_ns () - cpu0;
  g_mutex_unlock (&self->lock);
  return GST_FLOW_OK;
}

static gboolean
async_sink_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  GpuprofTestAsync *self = (GpuprofTestAsync *) parent;
  gboolean res;
  Item *item;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      g_mutex_lock (&self->lock);
      self->flushing = TRUE;
      self->epoch++;
      drop_queued (self);
      g_cond_broadcast (&self->cond);
      g_mutex_unlock (&self->lock);
      /* unblocks the output thread if it is inside a push */
      return gst_pad_push_event (self->srcpad, event);
    case GST_EVENT_FLUSH_STOP:
      g_mutex_lock (&self->push_lock);
      g_mutex_lock (&self->lock);
      drop_queued (self);
      self->flushing = FALSE;
      self->epoch++;
      self->last_ret = GST_FLOW_OK;
      g_mutex_unlock (&self->lock);
      res = gst_pad_push_event (self->srcpad, event);
      g_mutex_unlock (&self->push_lock);
      return res;
    default:
      break;
  }
  if (!GST_EVENT_IS_SERIALIZED (event))
    return gst_pad_event_default (pad, parent, event);

  /* in order with the buffers: through both threads */
  g_mutex_lock (&self->lock);
  if (self->flushing) {
    g_mutex_unlock (&self->lock);
    gst_event_unref (event);
    return FALSE;
  }
  item = g_new (Item, 1);
  item->obj = GST_MINI_OBJECT (event);
  item->epoch = self->epoch;
  g_queue_push_tail (&self->in_q, item);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static void
async_start (GpuprofTestAsync * self)
{
  g_mutex_lock (&self->lock);
  memset (&self->truth, 0, sizeof (self->truth));
  g_array_set_size (self->self_per_call, 0);
  g_array_set_size (self->pushed_pts, 0);
  self->flushing = FALSE;
  self->stopping = FALSE;
  self->last_ret = GST_FLOW_OK;
  self->epoch++;
  g_mutex_unlock (&self->lock);
  /* names short enough for the kernel's 15 characters */
  self->worker = g_thread_new ("gpuprofasync-w", worker_loop, self);
  self->output = g_thread_new ("gpuprofasync-o", output_loop, self);
}

/* Unblocks the chain and both threads; the pads' deactivation then makes
 * any push in progress return. */
static void
async_unblock (GpuprofTestAsync * self)
{
  g_mutex_lock (&self->lock);
  self->flushing = TRUE;
  self->stopping = TRUE;
  self->epoch++;
  drop_queued (self);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

static void
async_join (GpuprofTestAsync * self)
{
  if (self->worker)
    g_thread_join (self->worker);
  if (self->output)
    g_thread_join (self->output);
  self->worker = self->output = NULL;
  g_mutex_lock (&self->lock);
  drop_queued (self);
  g_mutex_unlock (&self->lock);
}

static GstStateChangeReturn
async_change_state (GstElement * element, GstStateChange transition)
{
  GpuprofTestAsync *self = (GpuprofTestAsync *) element;
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    async_start (self);
  else if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    async_unblock (self);
  ret = GST_ELEMENT_CLASS (gpuprof_test_async_parent_class)->change_state
      (element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    async_join (self);
  else if (transition == GST_STATE_CHANGE_READY_TO_PAUSED
      && ret == GST_STATE_CHANGE_FAILURE) {
    async_unblock (self);
    async_join (self);
  }
  return ret;
}

static void
async_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GpuprofTestAsync *self = (GpuprofTestAsync *) object;

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_WORK_US:
      self->work_us = g_value_get_uint (value);
      break;
    case PROP_SPIN:
      self->spin = g_value_get_boolean (value);
      break;
    case PROP_MAX_IN_FLIGHT:
      self->max_in_flight = g_value_get_uint (value);
      g_cond_broadcast (&self->cond);
      break;
    case PROP_COPY:
      self->copy = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  g_mutex_unlock (&self->lock);
}

static void
async_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GpuprofTestAsync *self = (GpuprofTestAsync *) object;

  g_mutex_lock (&self->lock);
  switch (prop_id) {
    case PROP_WORK_US:
      g_value_set_uint (value, self->work_us);
      break;
    case PROP_SPIN:
      g_value_set_boolean (value, self->spin);
      break;
    case PROP_MAX_IN_FLIGHT:
      g_value_set_uint (value, self->max_in_flight);
      break;
    case PROP_COPY:
      g_value_set_boolean (value, self->copy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  g_mutex_unlock (&self->lock);
}

static void
async_finalize (GObject * object)
{
  GpuprofTestAsync *self = (GpuprofTestAsync *) object;

  g_array_unref (self->self_per_call);
  g_array_unref (self->pushed_pts);
  g_mutex_clear (&self->lock);
  g_mutex_clear (&self->push_lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (gpuprof_test_async_parent_class)->finalize (object);
}

static GstStaticPadTemplate async_sink = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate async_src = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static void
gpuprof_test_async_class_init (GpuprofTestAsyncClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->set_property = async_set_property;
  gobject_class->get_property = async_get_property;
  gobject_class->finalize = async_finalize;
  g_object_class_install_property (gobject_class, PROP_WORK_US,
      g_param_spec_uint ("work-us", "Work", "Planted work per buffer on the "
          "worker thread, µs", 0, G_MAXUINT, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_SPIN,
      g_param_spec_boolean ("spin", "Spin", "Spin on the CPU instead of "
          "sleeping", FALSE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_MAX_IN_FLIGHT,
      g_param_spec_uint ("max-in-flight", "Max in flight", "Buffers queued, "
          "worked on or waiting to be pushed before the chain blocks", 1,
          G_MAXUINT, 2, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_COPY,
      g_param_spec_boolean ("copy", "Copy", "Push a copy of each buffer "
          "(made on the worker thread), as an element that is not in place",
          FALSE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  klass->change_state = async_change_state;
  gst_element_class_add_static_pad_template (klass, &async_sink);
  gst_element_class_add_static_pad_template (klass, &async_src);
  gst_element_class_set_static_metadata (klass, "gpuprofasync", "Filter",
      "Queues buffers to a worker thread with planted work and pushes them "
      "from an output thread, like nvinfer", "gpuprof");
}

static void
gpuprof_test_async_init (GpuprofTestAsync * self)
{
  self->sinkpad = gst_pad_new_from_static_template (&async_sink, "sink");
  self->srcpad = gst_pad_new_from_static_template (&async_src, "src");
  gst_pad_set_chain_function (self->sinkpad, async_chain);
  gst_pad_set_event_function (self->sinkpad, async_sink_event);
  GST_PAD_SET_PROXY_CAPS (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  GST_PAD_SET_PROXY_CAPS (self->srcpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->srcpad);
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
  self->max_in_flight = 2;
  g_mutex_init (&self->lock);
  g_mutex_init (&self->push_lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->in_q);
  g_queue_init (&self->out_q);
  self->self_per_call = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->pushed_pts = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
}

void
gpuprof_test_register_async (void)
{
  gst_element_register (NULL, "gpuprofasync", GST_RANK_NONE,
      gpuprof_test_async_get_type ());
}

static gint
compare_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

GpuprofTestAsyncTruth
gpuprof_test_async_truth_of (GstElement * element)
{
  GpuprofTestAsync *self = (GpuprofTestAsync *) element;
  GpuprofTestAsyncTruth t;
  GArray *sorted;

  fail_unless (G_TYPE_CHECK_INSTANCE_TYPE (element,
          gpuprof_test_async_get_type ()), "not a gpuprofasync element");
  g_mutex_lock (&self->lock);
  t = self->truth;
  sorted = g_array_copy (self->self_per_call);
  g_mutex_unlock (&self->lock);
  g_array_sort (sorted, compare_u64);
  if (sorted->len)
    t.work.self_p50_ns = g_array_index (sorted, guint64, (sorted->len - 1) / 2);
  g_array_unref (sorted);
  return t;
}

GpuprofTestAsyncTruth
gpuprof_test_async_truth (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GpuprofTestAsyncTruth t;

  fail_unless (e != NULL, "no element %s", name);
  t = gpuprof_test_async_truth_of (e);
  gst_object_unref (e);
  return t;
}

GArray *
gpuprof_test_async_pushed_pts (GstElement * element)
{
  GpuprofTestAsync *self = (GpuprofTestAsync *) element;
  GArray *a;

  g_mutex_lock (&self->lock);
  a = g_array_copy (self->pushed_pts);
  g_mutex_unlock (&self->lock);
  return a;
}

guint64
gpuprof_test_async_cpu_ns (const GpuprofTestAsyncTruth * truth)
{
  return truth->chain_cpu_ns + truth->worker_cpu_ns + truth->output_cpu_ns;
}
