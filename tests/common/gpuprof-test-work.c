/* gpuprofwork and gpuprofworksrc: planted work, measured on the element's
 * own clocks (see gpuprof-test-work.h). */
#include "gpuprof-test-work.h"
#include "gpuprof-test-async.h"
#include "gpuprof-test-helper.h"

#include <gst/base/gstbasesrc.h>
#include <gst/check/gstcheck.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

enum
{
  PROP_0,
  PROP_WORK_US,
  PROP_SPIN,
};

/* Shared by both elements; guarded by lock, since the streaming thread
 * writes while the test thread may read. */
typedef struct
{
  guint work_us;
  gboolean spin;
  GMutex lock;
  GpuprofTestTruth truth;
  GArray *self_per_call;        /* guint64 ns, one per call */
  GArray *push_end;             /* guint64 monotonic ns, one per call */
} WorkState;

static guint64
clock_ns (clockid_t clock)
{
  struct timespec ts;

  clock_gettime (clock, &ts);
  return (guint64) ts.tv_sec * GST_SECOND + ts.tv_nsec;
}

guint64
gpuprof_test_thread_cpu_ns (void)
{
  return clock_ns (CLOCK_THREAD_CPUTIME_ID);
}

guint64
gpuprof_test_now_ns (void)
{
  return clock_ns (CLOCK_MONOTONIC);
}

/* Per thread: fd + 1 of its /proc schedstat; 0 not opened yet, -1 none. */
static void
close_schedstat (gpointer value)
{
  if (GPOINTER_TO_INT (value) > 0)
    close (GPOINTER_TO_INT (value) - 1);
}

static GPrivate schedstat_fd = G_PRIVATE_INIT (close_schedstat);

/* Time this thread waited for a CPU so far, ns: the second field of
 * /proc/thread-self/schedstat. 0 where the kernel does not tell. */
static guint64
run_delay_ns (void)
{
  gint fd = GPOINTER_TO_INT (g_private_get (&schedstat_fd)) - 1;
  gchar buf[96];
  gssize n;
  gchar *end;

  if (fd == -1) {               /* not opened yet */
    fd = open ("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    g_private_set (&schedstat_fd, GINT_TO_POINTER (fd < 0 ? -1 : fd + 1));
  }
  if (fd < 0 || (n = pread (fd, buf, sizeof (buf) - 1, 0)) <= 0)
    return 0;
  buf[n] = 0;
  g_ascii_strtoull (buf, &end, 10);
  return g_ascii_strtoull (end, NULL, 10);
}

static void
work_state_init (WorkState * w)
{
  g_mutex_init (&w->lock);
  w->self_per_call = g_array_sized_new (FALSE, FALSE, sizeof (guint64), 1024);
  w->push_end = g_array_sized_new (FALSE, FALSE, sizeof (guint64), 1024);
}

static void
work_state_clear (WorkState * w)
{
  g_array_unref (w->self_per_call);
  g_array_unref (w->push_end);
  g_mutex_clear (&w->lock);
}

static void
work_state_reset (WorkState * w)
{
  g_mutex_lock (&w->lock);
  memset (&w->truth, 0, sizeof (w->truth));
  g_array_set_size (w->self_per_call, 0);
  g_array_set_size (w->push_end, 0);
  g_mutex_unlock (&w->lock);
}

/* The planted cost: a sleep (the scheduler decides how long it really is)
 * or a spin on the wall clock. Returns its thread CPU time. */
static guint64
work_state_work (WorkState * w)
{
  guint64 cpu0 = gpuprof_test_thread_cpu_ns ();

  if (w->spin) {
    guint64 end = gpuprof_test_now_ns () + w->work_us * GST_USECOND;
    while (gpuprof_test_now_ns () < end);
  } else if (w->work_us) {
    g_usleep (w->work_us);
  }
  return gpuprof_test_thread_cpu_ns () - cpu0;
}

static void
work_state_record (WorkState * w, guint64 self, guint64 incl, guint64 push,
    guint64 cpu, guint64 push_end, guint64 rd, guint64 push_rd)
{
  g_mutex_lock (&w->lock);
  w->truth.run_delay_ns += rd;
  w->truth.push_run_delay_ns += push_rd;
  g_array_append_val (w->push_end, push_end);
  w->truth.calls++;
  w->truth.self_ns += self;
  w->truth.incl_ns += incl;
  w->truth.push_ns += push;
  w->truth.cpu_ns += cpu;
  g_array_append_val (w->self_per_call, self);
  g_mutex_unlock (&w->lock);
}

static gint
compare_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

static GpuprofTestTruth
work_state_truth (WorkState * w)
{
  GpuprofTestTruth t;
  GArray *sorted;

  g_mutex_lock (&w->lock);
  t = w->truth;
  sorted = g_array_copy (w->self_per_call);
  g_mutex_unlock (&w->lock);
  g_array_sort (sorted, compare_u64);
  if (sorted->len)
    t.self_p50_ns = g_array_index (sorted, guint64, (sorted->len - 1) / 2);
  g_array_unref (sorted);
  return t;
}

static void
install_work_properties (GObjectClass * klass)
{
  g_object_class_install_property (klass, PROP_WORK_US,
      g_param_spec_uint ("work-us", "Work", "Planted work per buffer, µs",
          0, G_MAXUINT, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (klass, PROP_SPIN,
      g_param_spec_boolean ("spin", "Spin", "Spin on the CPU instead of "
          "sleeping", FALSE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
}

static void
work_state_set_property (WorkState * w, guint prop_id, const GValue * value)
{
  if (prop_id == PROP_WORK_US)
    w->work_us = g_value_get_uint (value);
  else if (prop_id == PROP_SPIN)
    w->spin = g_value_get_boolean (value);
}

static void
work_state_get_property (WorkState * w, guint prop_id, GValue * value)
{
  if (prop_id == PROP_WORK_US)
    g_value_set_uint (value, w->work_us);
  else if (prop_id == PROP_SPIN)
    g_value_set_boolean (value, w->spin);
}

/* ---- gpuprofwork: the filter ---- */

typedef struct
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;
  WorkState w;
} GpuprofTestWork;

typedef GstElementClass GpuprofTestWorkClass;

GType gpuprof_test_work_get_type (void);
G_DEFINE_TYPE (GpuprofTestWork, gpuprof_test_work, GST_TYPE_ELEMENT);

static GstFlowReturn
work_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  GpuprofTestWork *self = (GpuprofTestWork *) parent;
  guint64 rd0 = run_delay_ns (), t0 = gpuprof_test_now_ns (), t1, t2, t3;
  guint64 rd1, rd2, cpu;
  GstFlowReturn ret;

  cpu = work_state_work (&self->w);
  rd1 = run_delay_ns ();
  t1 = gpuprof_test_now_ns ();
  ret = gst_pad_push (self->srcpad, buf);
  t2 = gpuprof_test_now_ns ();
  rd2 = run_delay_ns ();
  t3 = gpuprof_test_now_ns ();
  work_state_record (&self->w, (t1 - t0) + (t3 - t2), t3 - t0, t2 - t1, cpu,
      t2, run_delay_ns () - rd0, rd2 - rd1);
  return ret;
}

static GstStateChangeReturn
work_change_state (GstElement * element, GstStateChange transition)
{
  GpuprofTestWork *self = (GpuprofTestWork *) element;

  /* a new run counts from zero, as the tracer does */
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    work_state_reset (&self->w);
  return GST_ELEMENT_CLASS (gpuprof_test_work_parent_class)->change_state
      (element, transition);
}

static void
work_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  work_state_set_property (&((GpuprofTestWork *) object)->w, prop_id, value);
}

static void
work_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  work_state_get_property (&((GpuprofTestWork *) object)->w, prop_id, value);
}

static void
work_finalize (GObject * object)
{
  work_state_clear (&((GpuprofTestWork *) object)->w);
  G_OBJECT_CLASS (gpuprof_test_work_parent_class)->finalize (object);
}

static GstStaticPadTemplate filter_sink = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate filter_src = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

void
gpuprof_test_filter_class_init (GstElementClass * klass,
    const gchar * longname, const gchar * description)
{
  gst_element_class_add_static_pad_template (klass, &filter_sink);
  gst_element_class_add_static_pad_template (klass, &filter_src);
  gst_element_class_set_static_metadata (klass, longname, "Filter",
      description, "gpuprof");
}

void
gpuprof_test_filter_add_pads (GstElement * element, GstPadChainFunction chain,
    GstPad ** sinkpad, GstPad ** srcpad)
{
  *sinkpad = gst_pad_new_from_static_template (&filter_sink, "sink");
  *srcpad = gst_pad_new_from_static_template (&filter_src, "src");
  gst_pad_set_chain_function (*sinkpad, chain);
  GST_PAD_SET_PROXY_CAPS (*sinkpad);
  GST_PAD_SET_PROXY_CAPS (*srcpad);
  gst_element_add_pad (element, *sinkpad);
  gst_element_add_pad (element, *srcpad);
}

static void
gpuprof_test_work_class_init (GpuprofTestWorkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->set_property = work_set_property;
  gobject_class->get_property = work_get_property;
  gobject_class->finalize = work_finalize;
  install_work_properties (gobject_class);
  klass->change_state = work_change_state;
  gpuprof_test_filter_class_init (klass, "gpuprofwork",
      "Planted work per buffer, measured on its own clocks");
}

static void
gpuprof_test_work_init (GpuprofTestWork * self)
{
  gpuprof_test_filter_add_pads (GST_ELEMENT (self), work_chain,
      &self->sinkpad, &self->srcpad);
  /* allocation passes through too; push mode only */
  GST_PAD_SET_PROXY_ALLOCATION (self->sinkpad);
  GST_PAD_SET_PROXY_ALLOCATION (self->srcpad);
  work_state_init (&self->w);
}

/* ---- gpuprofworksrc: the source ---- */

typedef struct
{
  GstBaseSrc parent;
  WorkState w;
} GpuprofTestWorkSrc;

typedef GstBaseSrcClass GpuprofTestWorkSrcClass;

GType gpuprof_test_work_src_get_type (void);
G_DEFINE_TYPE (GpuprofTestWorkSrc, gpuprof_test_work_src, GST_TYPE_BASE_SRC);

static GstFlowReturn
work_src_create (GstBaseSrc * src, guint64 offset, guint size,
    GstBuffer ** buf)
{
  GpuprofTestWorkSrc *self = (GpuprofTestWorkSrc *) src;
  guint64 t0 = gpuprof_test_now_ns (), cpu, d;

  cpu = work_state_work (&self->w);
  *buf = gst_buffer_new_allocate (NULL, 16, NULL);
  d = gpuprof_test_now_ns () - t0;
  work_state_record (&self->w, d, d, 0, cpu, 0, 0, 0);
  return GST_FLOW_OK;
}

static gboolean
work_src_start (GstBaseSrc * src)
{
  work_state_reset (&((GpuprofTestWorkSrc *) src)->w);
  return TRUE;
}

static void
work_src_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  work_state_set_property (&((GpuprofTestWorkSrc *) object)->w, prop_id,
      value);
}

static void
work_src_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  work_state_get_property (&((GpuprofTestWorkSrc *) object)->w, prop_id,
      value);
}

static void
work_src_finalize (GObject * object)
{
  work_state_clear (&((GpuprofTestWorkSrc *) object)->w);
  G_OBJECT_CLASS (gpuprof_test_work_src_parent_class)->finalize (object);
}

static void
gpuprof_test_work_src_class_init (GpuprofTestWorkSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = work_src_set_property;
  gobject_class->get_property = work_src_get_property;
  gobject_class->finalize = work_src_finalize;
  install_work_properties (gobject_class);
  gst_element_class_add_static_pad_template (element_class, &filter_src);
  gst_element_class_set_static_metadata (element_class, "gpuprofworksrc",
      "Source", "Planted work per buffer, measured on its own clocks",
      "gpuprof");
  klass->create = work_src_create;
  klass->start = work_src_start;
}

static void
gpuprof_test_work_src_init (GpuprofTestWorkSrc * self)
{
  work_state_init (&self->w);
}

void
gpuprof_test_register_elements (void)
{
  gst_element_register (NULL, "gpuprofwork", GST_RANK_NONE,
      gpuprof_test_work_get_type ());
  gst_element_register (NULL, "gpuprofworksrc", GST_RANK_NONE,
      gpuprof_test_work_src_get_type ());
  gpuprof_test_register_async ();
  gpuprof_test_register_helper ();
}

static WorkState *
work_state_of (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  WorkState *w = NULL;

  fail_unless (e != NULL, "no element %s", name);
  if (G_TYPE_CHECK_INSTANCE_TYPE (e, gpuprof_test_work_get_type ()))
    w = &((GpuprofTestWork *) e)->w;
  else if (G_TYPE_CHECK_INSTANCE_TYPE (e, gpuprof_test_work_src_get_type ()))
    w = &((GpuprofTestWorkSrc *) e)->w;
  fail_unless (w != NULL, "%s is no gpuprofwork element", name);
  /* the pipeline keeps it */
  gst_object_unref (e);
  return w;
}

GpuprofTestTruth
gpuprof_test_truth (GstElement * pipeline, const gchar * name)
{
  return work_state_truth (work_state_of (pipeline, name));
}

gboolean
gpuprof_test_run_delay_known (void)
{
  return g_file_test ("/proc/thread-self/schedstat", G_FILE_TEST_EXISTS);
}

GArray *
gpuprof_test_truth_push_ends (GstElement * pipeline, const gchar * name)
{
  WorkState *w = work_state_of (pipeline, name);
  GArray *a;

  g_mutex_lock (&w->lock);
  a = g_array_copy (w->push_end);
  g_mutex_unlock (&w->lock);
  return a;
}
