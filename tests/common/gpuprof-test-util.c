/* Helpers shared by the tests that run pipelines under the tracer. */
#include "gpuprof-test-util.h"

/* The tracer and the element measure the same calls on the same clock;
 * they differ by the hooks' and pad dispatch's own cost per call (a few µs,
 * more when the thread is preempted between a hook and the element), and
 * by a preemption landing in that gap on a loaded machine: a few percent
 * of the truth plus a small slack per call. A tracer that charges a
 * neighbour's time to an element is off by whole calls' worth. */
#define TRUTH_TOLERANCE 0.03
#define TRUTH_SLACK_PER_CALL_NS (20 * GST_USECOND)

GstTracer *
gpuprof_test_tracer (void)
{
  GstTracer *found = gpuprof_test_find_tracer ();

  fail_unless (found != NULL, "the gpuprof tracer is not active "
      "(GST_TRACERS / GST_PLUGIN_PATH not set up?)");
  return found;
}

gint
gpuprof_test_main (gint * argc, gchar *** argv, const gchar * tracers,
    Suite * (*suite) (void), const gchar * name, const gchar * file)
{
  g_setenv ("GST_TRACERS", tracers, TRUE);
  gst_check_init (argc, argv);
  return gst_check_run_suite (suite (), name, file);
}

GstMessageType
gpuprof_test_play (GstElement * pipeline, GstClockTime timeout,
    gchar ** error)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessageType type = 0;
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg) {
    type = GST_MESSAGE_TYPE (msg);
    if (type == GST_MESSAGE_ERROR && error) {
      GError *err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      *error = g_strdup (err->message);
      g_error_free (err);
    }
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return type;
}

void
gpuprof_test_play_to_eos (GstElement * pipeline)
{
  gchar *error = NULL;
  GstMessageType type = gpuprof_test_play (pipeline, 60 * GST_SECOND, &error);

  fail_unless (type != 0, "no EOS within 60 s");
  fail_unless (type == GST_MESSAGE_EOS, "pipeline error: %s", error);
}

/* Parses a description that may use the test elements (gpuprofwork,
 * gpuprofworksrc). */
GstElement *
gpuprof_test_parse (const gchar * description)
{
  GError *err = NULL;
  GstElement *pipeline;

  gpuprof_test_register_elements ();
  pipeline = gst_parse_launch (description, &err);
  fail_unless (pipeline != NULL, "cannot parse '%s': %s", description,
      err ? err->message : "?");
  g_clear_error (&err);
  return pipeline;
}

/* Runs to EOS and leaves the pipeline PLAYING, so its statistics are still
 * there; setting it to NULL prints the report and starts a new run. */
GstElement *
gpuprof_test_run (const gchar * description)
{
  GstElement *pipeline = gpuprof_test_parse (description);

  gpuprof_test_play_to_eos (pipeline);
  return pipeline;
}

GstElement *
gpuprof_test_parse_counting (const gchar * description,
    const gchar * element, GpuprofTestCount * count)
{
  GstElement *p = gpuprof_test_parse (description);
  GstElement *e = gst_bin_get_by_name (GST_BIN (p), element);

  fail_unless (e != NULL, "no element %s in '%s'", element, description);
  gpuprof_test_count_pads (e, count);
  gst_object_unref (e);
  return p;
}

void
gpuprof_test_stop (GstElement * pipeline)
{
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

gchar *
gpuprof_test_path (GstElement * pipeline, const gchar * name)
{
  return g_strdup_printf ("%s/%s", GST_OBJECT_NAME (pipeline), name);
}

GstStructure *
gpuprof_test_element_stats (const gchar * path)
{
  GstStructure *s = NULL;

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-element-stats", path,
      &s);
  fail_unless (s != NULL, "no statistics for element %s", path);
  return s;
}

GstStructure *
gpuprof_test_element_stats_of (GstElement * pipeline, const gchar * name)
{
  gchar *path = gpuprof_test_path (pipeline, name);
  GstStructure *s = gpuprof_test_element_stats (path);

  g_free (path);
  return s;
}

GstStructure *
gpuprof_test_queue_stats (const gchar * path)
{
  GstStructure *s = NULL;

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-queue-stats", path, &s);
  fail_unless (s != NULL, "no statistics for queue %s", path);
  return s;
}

GstStructure *
gpuprof_test_batch_stats (GstElement * pipeline, const gchar * name)
{
  gchar *path = gpuprof_test_path (pipeline, name);
  GstStructure *s = NULL;

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-batch-stats", path, &s);
  fail_unless (s != NULL, "no batch statistics for %s", path);
  g_free (path);
  return s;
}

gdouble
gpuprof_test_get_double (const GstStructure * s, const gchar * field)
{
  gdouble v = -1;

  fail_unless (gst_structure_get_double (s, field, &v), "no field %s in %"
      GST_PTR_FORMAT, field, s);
  return v;
}

guint64
gpuprof_test_get_u64 (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, field, &v), "no field %s in %"
      GST_PTR_FORMAT, field, s);
  return v;
}

gchar *
gpuprof_test_last_report (void)
{
  gchar *text = NULL;

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-last-report", &text);
  return text;
}

gchar *
gpuprof_test_live_report (GstElement * pipeline)
{
  gchar *text = NULL;

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-report",
      GST_OBJECT_NAME (pipeline), &text);
  fail_unless (text != NULL, "no report for %s", GST_OBJECT_NAME (pipeline));
  return text;
}

#define SAID_MAX 2048

const gchar *
gpuprof_test_said (const gchar * report)
{
  gsize len = report ? strlen (report) : 0;
  const gchar *tail, *nl;

  if (len <= SAID_MAX)
    return report ? report : "(no report)";
  g_printerr ("%s\n", report);
  tail = report + len - SAID_MAX;
  nl = strchr (tail, '\n');
  return nl ? nl + 1 : tail;
}

gchar **
gpuprof_test_thread_row (const gchar * report, const gchar * thread)
{
  const gchar *section = strstr (report, "\nThreads\n");
  gchar **lines, **row = NULL;
  guint i;

  if (!section)
    return NULL;
  lines = g_strsplit (section + 1, "\n", -1);
  /* the section ends at its first empty line */
  for (i = 1; lines[i] && lines[i][0] && !row; i++) {
    gchar **cells = g_strsplit_set (g_strstrip (lines[i]), " ", -1);
    GPtrArray *kept = g_ptr_array_new ();
    guint k;

    for (k = 0; cells[k]; k++) {
      if (cells[k][0])
        g_ptr_array_add (kept, g_strdup (cells[k]));
    }
    g_ptr_array_add (kept, NULL);
    row = (gchar **) g_ptr_array_free (kept, FALSE);
    if (g_strv_length (row) < 6 || g_strcmp0 (row[0], thread)) {
      g_strfreev (row);
      row = NULL;
    }
    g_strfreev (cells);
  }
  g_strfreev (lines);
  return row;
}

/* FALSE under valgrind (tools/run-valgrind.sh sets GPUPROF_TEST_NO_TIMING):
 * timing bounds are skipped, everything else is checked. */
gboolean
gpuprof_test_timing (void)
{
  return g_getenv ("GPUPROF_TEST_NO_TIMING") == NULL;
}

const gchar *
gpuprof_test_clip (void)
{
  const gchar *clip = g_getenv ("GPUPROF_TEST_CLIP");

  return clip && g_file_test (clip, G_FILE_TEST_EXISTS) ? clip : NULL;
}

/* Under valgrind (tools/run-valgrind.sh sets GPUPROF_TEST_NO_TIMING) every
 * call is many times slower: only check that something was measured. */
void
gpuprof_test_assert_near (const gchar * what, gdouble value,
    gdouble expected, gdouble tolerance)
{
  if (!gpuprof_test_timing ()) {
    fail_unless (value > 0, "%s = %.0f, expected a measurement", what, value);
    return;
  }
  fail_unless (value >= expected * (1.0 - tolerance)
      && value <= expected * (1.0 + tolerance),
      "%s = %.0f, expected %.0f within %.0f %%", what, value, expected,
      tolerance * 100);
}

void
gpuprof_test_assert_figure (const gchar * what, gdouble value,
    gdouble expected)
{
  fail_unless (ABS (value - expected) <= 1e-9 * MAX (1.0, ABS (expected)),
      "%s = %g, scripted %g", what, value, expected);
}

/* measured_ns (the tracer's figure over calls calls) against truth_ns (the
 * same thing measured by the element or by probes in the same run), with
 * extra_ns more room where a known cause explains it. */
void
gpuprof_test_assert_truth_with (const gchar * what, guint64 measured_ns,
    guint64 truth_ns, guint64 calls, guint64 extra_ns)
{
  gdouble slack = TRUTH_TOLERANCE * truth_ns +
      (gdouble) calls * TRUTH_SLACK_PER_CALL_NS + extra_ns;

  if (!gpuprof_test_timing ()) {
    fail_unless (measured_ns > 0, "%s = 0, expected a measurement", what);
    return;
  }
  GST_INFO ("%s: %" G_GUINT64_FORMAT " ns, truth %" G_GUINT64_FORMAT
      " ns (%+.2f %%, extra room %" G_GUINT64_FORMAT " ns)", what,
      measured_ns, truth_ns, truth_ns ? 100.0 * ((gdouble) measured_ns -
          truth_ns) / truth_ns : 0, extra_ns);
  fail_unless (ABS ((gdouble) measured_ns - (gdouble) truth_ns) <= slack,
      "%s = %.3f ms, truth %.3f ms: off by more than %.0f %% + %u µs x %"
      G_GUINT64_FORMAT " calls + %.3f ms", what, measured_ns / 1e6,
      truth_ns / 1e6, TRUTH_TOLERANCE * 100,
      (guint) (TRUTH_SLACK_PER_CALL_NS / 1000), calls, extra_ns / 1e6);
}

void
gpuprof_test_assert_truth (const gchar * what, guint64 measured_ns,
    guint64 truth_ns, guint64 calls)
{
  gpuprof_test_assert_truth_with (what, measured_ns, truth_ns, calls, 0);
}

static guint64
sub0 (guint64 a, guint64 b)
{
  return a > b ? a - b : 0;
}

/* The tracer's self and inclusive time of the element at path against the
 * gpuprofwork element's own record (x), between the gpuprofwork elements up
 * and child. The tracer's figures also hold what happens between its hooks
 * and the element's own clock readings: pad dispatch and the hooks' own
 * work, a few µs a call, in the tolerance. But a loaded machine may take
 * the CPU away from the thread right there, for milliseconds; the time the
 * thread then waited for a CPU (its run delay) in up's pushes outside x's
 * calls, and in x's pushes outside child's calls, is measured too, and is
 * the extra room. Where the kernel does not tell the run delay, the room
 * is one call: the tracer's longest over the element's median. */
guint64
gpuprof_test_element_room (const gchar * path, const GpuprofTestTruth * up,
    const GpuprofTestTruth * x, const GpuprofTestTruth * child)
{
  GstStructure *s;
  guint64 room;

  if (gpuprof_test_run_delay_known ())
    return sub0 (up->push_run_delay_ns, x->run_delay_ns) +
        sub0 (x->push_run_delay_ns, child->run_delay_ns);
  s = gpuprof_test_element_stats (path);
  room = sub0 (gpuprof_test_get_u64 (s, "self_max_ns"), x->self_p50_ns);
  gst_structure_free (s);
  return room;
}

void
gpuprof_test_assert_element_truth (const gchar * path,
    const GpuprofTestTruth * up, const GpuprofTestTruth * x,
    const GpuprofTestTruth * child)
{
  GstStructure *s = gpuprof_test_element_stats (path);
  guint64 extra = gpuprof_test_element_room (path, up, x, child);
  gchar *what;

  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "calls"), x->calls);
  what = g_strdup_printf ("%s self", path);
  gpuprof_test_assert_truth_with (what, gpuprof_test_get_u64 (s, "self_ns"),
      x->self_ns, x->calls, extra);
  g_free (what);
  what = g_strdup_printf ("%s incl", path);
  gpuprof_test_assert_truth_with (what, gpuprof_test_get_u64 (s, "incl_ns"),
      x->incl_ns, x->calls, extra);
  g_free (what);
  gst_structure_free (s);
}

struct _GpuprofTestPadWatch
{
  GMutex lock;
  guint64 in, out;
  GArray *left;                 /* guint64 monotonic ns, one per buffer */
};

static void
pad_watch_free (GpuprofTestPadWatch * w)
{
  g_array_unref (w->left);
  g_mutex_clear (&w->lock);
  g_free (w);
}

static GstPadProbeReturn
watch_sink_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GpuprofTestPadWatch *w = data;
  guint n = gpuprof_test_probe_buffers (info);

  g_mutex_lock (&w->lock);
  w->in += n;
  g_mutex_unlock (&w->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
watch_src_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GpuprofTestPadWatch *w = data;
  guint n = gpuprof_test_probe_buffers (info), i;
  guint64 now = gpuprof_test_now_ns ();

  g_mutex_lock (&w->lock);
  w->out += n;
  for (i = 0; i < n; i++)
    g_array_append_val (w->left, now);
  g_mutex_unlock (&w->lock);
  return GST_PAD_PROBE_OK;
}

static void
watch_pad (GstElement * e, const gchar * name, GstPadProbeCallback cb,
    gpointer data)
{
  GstPad *pad = gst_element_get_static_pad (e, name);

  fail_unless (pad != NULL, "%s has no pad %s", GST_OBJECT_NAME (e), name);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, cb, data, NULL);
  gst_object_unref (pad);
}

GpuprofTestPadWatch *
gpuprof_test_watch (GstElement * pipeline, const gchar * element)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), element);
  GpuprofTestPadWatch *w = g_new0 (GpuprofTestPadWatch, 1);
  gchar *key = g_strdup_printf ("gpuprof-test-watch-%s", element);

  fail_unless (e != NULL, "no element %s", element);
  g_mutex_init (&w->lock);
  w->left = g_array_new (FALSE, FALSE, sizeof (guint64));
  watch_pad (e, "sink", watch_sink_probe, w);
  watch_pad (e, "src", watch_src_probe, w);
  g_object_set_data_full (G_OBJECT (pipeline), key, w,
      (GDestroyNotify) pad_watch_free);
  gst_object_unref (e);
  g_free (key);
  return w;
}

/* a count of @w, read under its lock */
static guint64
watch_read (GpuprofTestPadWatch * w, const guint64 * count)
{
  guint64 n;

  g_mutex_lock (&w->lock);
  n = *count;
  g_mutex_unlock (&w->lock);
  return n;
}

guint64
gpuprof_test_watch_in (GpuprofTestPadWatch * w)
{
  return watch_read (w, &w->in);
}

guint64
gpuprof_test_watch_out (GpuprofTestPadWatch * w)
{
  return watch_read (w, &w->out);
}

static gint
compare_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

guint64
gpuprof_test_residency_p50 (GpuprofTestPadWatch * w, GstElement * pipeline,
    const gchar * upstream)
{
  GArray *entered = gpuprof_test_truth_push_ends (pipeline, upstream);
  GArray *res = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 p50 = 0;
  guint i;

  g_mutex_lock (&w->lock);
  fail_unless_equals_int (w->left->len, entered->len);
  for (i = 0; i < w->left->len; i++) {
    guint64 in = g_array_index (entered, guint64, i);
    guint64 out = g_array_index (w->left, guint64, i);
    guint64 ns = out > in ? out - in : 0;
    g_array_append_val (res, ns);
  }
  g_mutex_unlock (&w->lock);
  g_array_sort (res, compare_u64);
  if (res->len)
    p50 = g_array_index (res, guint64, (res->len - 1) / 2);
  g_array_unref (res);
  g_array_unref (entered);
  return p50;
}

static GstPadProbeReturn
span_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GpuprofTestSpan *span = data;
  guint64 now = gpuprof_test_now_ns ();

  /* one streaming thread writes; read after EOS */
  if (!span->first_ns)
    span->first_ns = now;
  span->last_ns = now;
  return GST_PAD_PROBE_OK;
}

GpuprofTestSpan *
gpuprof_test_watch_span (GstElement * pipeline, const gchar * element,
    const gchar * pad_name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), element);
  GpuprofTestSpan *span = g_new0 (GpuprofTestSpan, 1);
  gchar *key = g_strdup_printf ("gpuprof-test-span-%s:%s", element,
      pad_name);
  GstPad *pad;

  fail_unless (e != NULL, "no element %s", element);
  pad = gst_element_get_static_pad (e, pad_name);
  fail_unless (pad != NULL, "%s has no pad %s", element, pad_name);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_DATA_DOWNSTREAM, span_probe,
      span, NULL);
  g_object_set_data_full (G_OBJECT (pipeline), key, span, g_free);
  gst_object_unref (pad);
  gst_object_unref (e);
  g_free (key);
  return span;
}

/* Shared by the waiter and the probe, each holding a reference: the
 * probe's is dropped when the pad removes it, after its last call. */
typedef struct
{
  GMutex lock;
  GCond cond;
  guint left;
} BufferWait;

static void
buffer_wait_clear (BufferWait * bw)
{
  g_mutex_clear (&bw->lock);
  g_cond_clear (&bw->cond);
}

static void
buffer_wait_unref (gpointer bw)
{
  g_atomic_rc_box_release_full (bw, (GDestroyNotify) buffer_wait_clear);
}

static GstPadProbeReturn
buffer_wait_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  BufferWait *bw = data;
  gboolean done;

  g_mutex_lock (&bw->lock);
  if (bw->left && !--bw->left)
    g_cond_signal (&bw->cond);
  done = bw->left == 0;
  g_mutex_unlock (&bw->lock);
  return done ? GST_PAD_PROBE_REMOVE : GST_PAD_PROBE_OK;
}

void
gpuprof_test_wait_buffers (GstElement * bin, const gchar * element, guint n)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (bin), element);
  BufferWait *bw = g_atomic_rc_box_new0 (BufferWait);
  gint64 end = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
  GstPad *pad;

  fail_unless (e != NULL, "no element %s", element);
  pad = gst_element_get_static_pad (e, "sink");
  g_mutex_init (&bw->lock);
  g_cond_init (&bw->cond);
  bw->left = n;
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, buffer_wait_probe,
      g_atomic_rc_box_acquire (bw), buffer_wait_unref);
  g_mutex_lock (&bw->lock);
  while (bw->left && g_cond_wait_until (&bw->cond, &bw->lock, end));
  fail_unless (bw->left == 0, "%s: %u of %u buffers still missing after "
      "60 s", element, bw->left, n);
  g_mutex_unlock (&bw->lock);
  buffer_wait_unref (bw);
  gst_object_unref (pad);
  gst_object_unref (e);
}
