/* gpuprofhelpersink: a sink with a private helper thread (see
 * gpuprof-test-helper.h). */
#include "gpuprof-test-helper.h"
#include "gpuprof-test-work.h"

#include <gst/base/gstbasesink.h>
#include <gst/check/gstcheck.h>

enum
{
  PROP_0,
  PROP_HELPER_SPIN_US,
  PROP_HELPER_NAME,
  PROP_LAZY,
};

typedef struct
{
  GstBaseSink parent;
  guint spin_us;
  gchar *helper_name;
  gboolean lazy;

  GMutex lock;                  /* guards all below */
  GCond cond;
  GThread *helper;
  gboolean started, spun, stopping;
  guint64 cpu_ns;               /* the helper's CPU clock as it ended */
} GpuprofTestHelper;

typedef GstBaseSinkClass GpuprofTestHelperClass;

GType gpuprof_test_helper_get_type (void);
G_DEFINE_TYPE (GpuprofTestHelper, gpuprof_test_helper, GST_TYPE_BASE_SINK);

/* Spins on its own CPU clock, so that a loaded machine changes how long it
 * takes, not how much CPU it gets; then waits, off the CPU */
static gpointer
helper_loop (gpointer data)
{
  GpuprofTestHelper *self = data;
  guint64 end = gpuprof_test_thread_cpu_ns () + self->spin_us * GST_USECOND;

  g_mutex_lock (&self->lock);
  self->started = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  while (self->spin_us && gpuprof_test_thread_cpu_ns () < end);
  g_mutex_lock (&self->lock);
  self->spun = TRUE;
  g_cond_broadcast (&self->cond);
  while (!self->stopping)
    g_cond_wait (&self->cond, &self->lock);
  self->cpu_ns = gpuprof_test_thread_cpu_ns ();
  g_mutex_unlock (&self->lock);
  return NULL;
}

/* starts the helper and waits until it runs, named (GLib names a thread
 * on the thread itself, as a library's worker does) */
static void
start_helper (GpuprofTestHelper * self)
{
  gchar *name = self->helper_name ? g_strdup (self->helper_name) :
      g_strdup_printf ("h-%s", GST_OBJECT_NAME (self));

  self->helper = g_thread_new (name, helper_loop, self);
  g_mutex_lock (&self->lock);
  while (!self->started)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
  g_free (name);
}

static gboolean
helper_start (GstBaseSink * sink)
{
  GpuprofTestHelper *self = (GpuprofTestHelper *) sink;

  g_mutex_lock (&self->lock);
  self->started = self->spun = self->stopping = FALSE;
  self->cpu_ns = 0;
  g_mutex_unlock (&self->lock);
  if (!self->lazy)
    start_helper (self);
  return TRUE;
}

static gboolean
helper_stop (GstBaseSink * sink)
{
  GpuprofTestHelper *self = (GpuprofTestHelper *) sink;

  g_mutex_lock (&self->lock);
  self->stopping = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  if (self->helper)
    g_thread_join (self->helper);
  self->helper = NULL;
  return TRUE;
}

static GstFlowReturn
helper_render (GstBaseSink * sink, GstBuffer * buf)
{
  GpuprofTestHelper *self = (GpuprofTestHelper *) sink;

  if (!self->helper)
    start_helper (self);
  return GST_FLOW_OK;
}

static void
helper_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GpuprofTestHelper *self = (GpuprofTestHelper *) object;

  if (prop_id == PROP_HELPER_SPIN_US) {
    self->spin_us = g_value_get_uint (value);
  } else if (prop_id == PROP_HELPER_NAME) {
    g_free (self->helper_name);
    self->helper_name = g_value_dup_string (value);
  } else if (prop_id == PROP_LAZY) {
    self->lazy = g_value_get_boolean (value);
  }
}

static void
helper_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GpuprofTestHelper *self = (GpuprofTestHelper *) object;

  if (prop_id == PROP_HELPER_SPIN_US)
    g_value_set_uint (value, self->spin_us);
  else if (prop_id == PROP_HELPER_NAME)
    g_value_set_string (value, self->helper_name);
  else if (prop_id == PROP_LAZY)
    g_value_set_boolean (value, self->lazy);
}

static void
helper_finalize (GObject * object)
{
  GpuprofTestHelper *self = (GpuprofTestHelper *) object;

  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_free (self->helper_name);
  G_OBJECT_CLASS (gpuprof_test_helper_parent_class)->finalize (object);
}

static GstStaticPadTemplate helper_sink = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static void
gpuprof_test_helper_class_init (GpuprofTestHelperClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = helper_set_property;
  gobject_class->get_property = helper_get_property;
  gobject_class->finalize = helper_finalize;
  g_object_class_install_property (gobject_class, PROP_HELPER_SPIN_US,
      g_param_spec_uint ("helper-spin-us", "Helper spin",
          "CPU time the helper thread spins, µs (0: it only waits)", 0,
          G_MAXUINT, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_HELPER_NAME,
      g_param_spec_string ("helper-name", "Helper name",
          "The name the helper gives itself (NULL: \"h-\" + the element's)",
          NULL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_LAZY,
      g_param_spec_boolean ("lazy", "Lazy",
          "Start the helper in the first render, not when the sink starts",
          FALSE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  gst_element_class_add_static_pad_template (element_class, &helper_sink);
  gst_element_class_set_static_metadata (element_class, "gpuprofhelpersink",
      "Sink", "Drops buffers; a private helper thread spins planted CPU",
      "gpuprof");
  klass->start = helper_start;
  klass->stop = helper_stop;
  klass->render = helper_render;
}

static void
gpuprof_test_helper_init (GpuprofTestHelper * self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
}

void
gpuprof_test_register_helper (void)
{
  gst_element_register (NULL, "gpuprofhelpersink", GST_RANK_NONE,
      gpuprof_test_helper_get_type ());
}

static GpuprofTestHelper *
helper_of (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);

  fail_unless (e != NULL, "no element %s", name);
  fail_unless (G_TYPE_CHECK_INSTANCE_TYPE (e, gpuprof_test_helper_get_type ()),
      "%s is no gpuprofhelpersink", name);
  /* the pipeline keeps it */
  gst_object_unref (e);
  return (GpuprofTestHelper *) e;
}

void
gpuprof_test_helper_wait_spun (GstElement * pipeline, const gchar * name)
{
  GpuprofTestHelper *self = helper_of (pipeline, name);

  g_mutex_lock (&self->lock);
  while (!self->spun)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
}

guint64
gpuprof_test_helper_cpu_ns (GstElement * pipeline, const gchar * name)
{
  GpuprofTestHelper *self = helper_of (pipeline, name);
  guint64 ns;

  g_mutex_lock (&self->lock);
  ns = self->cpu_ns;
  g_mutex_unlock (&self->lock);
  return ns;
}
