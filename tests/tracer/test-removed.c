/* Elements taken out of a running pipeline, against snapshots taken at the
 * same time (docs/tracer.md#removed). A thread adds and removes live
 * camera bins on a funnel, one after the other, while this thread takes
 * snapshots (get-metrics) as fast as it can and the live thread takes its
 * own (interval=) and sweeps. A camera that leaves is counted in each
 * snapshot once — as rows of its own before the snapshot that folds it,
 * in the removed table after — so the cameras' buffers out (their rows'
 * plus the removed table's) never go back from one snapshot to the next
 * (but for a push in flight when a camera stops, taken back), and end
 * equal to the probes' truth. Run under ASan (a record freed under
 * a reader) and beside burners (tools/stress-tests.sh). */
#include "gpuprof-test-util.h"

#include <string.h>

#define CAMERAS 300

typedef struct
{
  GstElement *pipeline, *funnel;
  gint truth;                   /* buffers the cameras sent (probes) */
  gint done;
  guint removed;
} Churn;

static GstPadProbeReturn
count_and_flag (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  gint *seen = data;

  g_atomic_int_inc (seen);
  return GST_PAD_PROBE_OK;
}

static gpointer
churn_thread (gpointer data)
{
  Churn *c = data;
  GstBus *bus = gst_element_get_bus (c->pipeline);
  guint i;

  for (i = 0; i < CAMERAS; i++) {
    GstElement *cam = gst_parse_bin_from_description ("videotestsrc name=src "
        "is-live=true pattern=black ! capsfilter name=caps caps=video/x-raw,"
        "format=GRAY8,width=16,height=16,framerate=500/1", TRUE, NULL);
    GstPad *src = gst_element_get_static_pad (cam, "src");
    GstElement *caps = gst_bin_get_by_name (GST_BIN (cam), "caps");
    GstElement *source = gst_bin_get_by_name (GST_BIN (cam), "src");
    GstPad *in = gst_element_get_static_pad (caps, "sink");
    GstPad *fpad = gst_element_request_pad_simple (c->funnel, "sink_%u");
    gint seen = 0;
    gint64 until = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;
    GstMessage *msg;

    gst_object_ref (cam);
    gst_bin_add (GST_BIN (c->pipeline), cam);
    fail_unless (gst_pad_link (src, fpad) == GST_PAD_LINK_OK);
    /* on the receiving pad, after its own checks: the buffers that
     * crossed from the source */
    gst_pad_add_probe (in, GST_PAD_PROBE_TYPE_BUFFER, count_and_flag, &seen,
        NULL);
    gst_object_unref (in);
    gst_element_sync_state_with_parent (cam);
    while (g_atomic_int_get (&seen) < 2 && g_get_monotonic_time () < until)
      g_usleep (200);
    fail_unless (g_atomic_int_get (&seen) >= 2, "camera %u sent nothing", i);
    /* stopped before it is unlinked, its source first (no buffer meets a
     * capsfilter stopping: a flush between the chain hook and the pad's
     * own check counts the buffer on both sides, docs/tracer.md); locked
     * first, so the pipeline's own state changes (its lost state and
     * async-done as cameras come) leave it stopped */
    gst_element_set_locked_state (cam, TRUE);
    gst_element_set_state (source, GST_STATE_NULL);
    gst_element_set_state (cam, GST_STATE_NULL);
    gst_object_unref (source);
    gst_object_unref (caps);
    gst_pad_unlink (src, fpad);
    gst_bin_remove (GST_BIN (c->pipeline), cam);
    gst_element_release_request_pad (c->funnel, fpad);
    g_atomic_int_add (&c->truth, g_atomic_int_get (&seen));
    gst_object_unref (fpad);
    gst_object_unref (src);
    gst_object_unref (cam);     /* destroyed here */
    /* the messages hold references to its elements */
    while ((msg = gst_bus_pop (bus)))
      gst_message_unref (msg);
    c->removed++;
  }
  gst_object_unref (bus);
  g_atomic_int_set (&c->done, 1);
  return NULL;
}

static GstStructure *
metrics (void)
{
  GstStructure *s = NULL;

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-metrics", "pipeline0",
      &s);
  fail_unless (s != NULL, "no get-metrics");
  return s;
}

/* the rows of @field in a get-metrics structure, each through @f */
static guint64
sum_rows (const GstStructure * s, const gchar * field,
    guint64 (*f) (const GstStructure * row, gpointer data), gpointer data)
{
  const GValue *arr = gst_structure_get_value (s, field);
  guint64 sum = 0;
  guint i;

  fail_unless (arr != NULL, "no %s in get-metrics", field);
  for (i = 0; i < gst_value_array_get_size (arr); i++)
    sum += f (gst_value_get_structure (gst_value_array_get_value (arr, i)),
        data);
  return sum;
}

/* a camera's source, in a row of its own */
static guint64
camera_source_out (const GstStructure * row, gpointer data)
{
  const gchar *path = gst_structure_get_string (row, "path");
  guint *rows = data;

  if (!path || !strstr (path, "/bin")
      || g_strcmp0 (gst_structure_get_string (row, "factory"), "videotestsrc"))
    return 0;
  (*rows)++;
  return gpuprof_test_get_u64 (row, "buffers_out");
}

static guint64
removed_source_out (const GstStructure * row, gpointer data)
{
  if (g_strcmp0 (gst_structure_get_string (row, "factory"), "videotestsrc"))
    return 0;
  *(guint64 *) data = gpuprof_test_get_u64 (row, "elements");
  return gpuprof_test_get_u64 (row, "buffers_out");
}

/* the cameras' buffers out in one snapshot; @rows: cameras with a row,
 * @folded: cameras folded */
static guint64
cameras_out (guint * rows, guint64 * folded)
{
  GstStructure *s = metrics ();
  guint64 n;

  *rows = 0;
  *folded = 0;
  n = sum_rows (s, "elements", camera_source_out, rows)
      + sum_rows (s, "removed", removed_source_out, folded);
  gst_structure_free (s);
  return n;
}

GST_START_TEST (test_snapshots_while_cameras_come_and_go)
{
  Churn c = { NULL };
  GstElement *sink;
  GThread *th;
  guint64 prev = 0, now, folded = 0;
  guint snaps = 0, rows = 0, prev_rows = 0;

  c.pipeline = gst_pipeline_new ("pipeline0");
  c.funnel = gst_element_factory_make ("funnel", "f");
  sink = gst_element_factory_make ("fakesink", "sink");
  g_object_set (sink, "sync", FALSE, NULL);
  gst_bin_add_many (GST_BIN (c.pipeline), c.funnel, sink, NULL);
  fail_unless (gst_element_link (c.funnel, sink));
  fail_unless (gst_element_set_state (c.pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  th = g_thread_new ("churn", churn_thread, &c);
  while (!g_atomic_int_get (&c.done)) {
    now = cameras_out (&rows, &folded);
    /* a push counted at its start is taken back when it fails (the source
     * stopping): one per camera with a row may go back, and one more
     * (seen once beside two burners: 581 then 580, no camera with a row,
     * the take-back landing after its camera was folded); a camera counted
     * twice or missed would move by all its buffers, two at least */
    fail_unless (now + prev_rows + 1 >= prev, "snapshot %u: the cameras' "
        "buffers went back from %" G_GUINT64_FORMAT " (%u rows) to %"
        G_GUINT64_FORMAT " (%u rows, %" G_GUINT64_FORMAT " folded): one "
        "counted twice, or not at all", snaps, prev, prev_rows, now, rows,
        folded);
    prev = MAX (prev, now);
    prev_rows = rows;
    snaps++;
  }
  g_thread_join (th);
  now = cameras_out (&rows, &folded);
  fail_unless (now >= prev);
  GST_INFO ("%u snapshots during %u cameras", snaps, c.removed);
  fail_unless (snaps > 10, "only %u snapshots while the cameras came and "
      "went", snaps);
  fail_unless_equals_int (rows, 0);
  fail_unless_equals_uint64 (folded, CAMERAS);
  fail_unless_equals_uint64 (now, (guint64) g_atomic_int_get (&c.truth));
  gst_element_set_state (c.pipeline, GST_STATE_NULL);
  gst_object_unref (c.pipeline);
}

GST_END_TEST;

static Suite *
removed_suite (void)
{
  Suite *s = suite_create ("gpuprof-removed");
  TCase *tc = tcase_create ("removed");

  tcase_set_timeout (tc, 240);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_snapshots_while_cameras_come_and_go);
  return s;
}

GPUPROF_TEST_MAIN (removed, "gpuprof-removed",
    "gpuprof(report=off,interval=0.05)");
