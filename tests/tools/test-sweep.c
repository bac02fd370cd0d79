/* gst-gpuprof sweep, the pure part: templates, variables, the figures of a
 * point, and the three search modes over planted fps functions (no
 * pipelines: tools-sweep.sh runs real ones). */
#include <json-glib/json-glib.h>
#include <string.h>

#include "gpuprof-sweep.h"

static GpuprofSweep *
sweep_with (const gchar * template, GpuprofSweepMode mode, ...)
{
  GpuprofSweep *s = gpuprof_sweep_new ();
  const gchar *spec;
  va_list ap;

  s->template = g_strdup (template);
  s->mode = mode;
  va_start (ap, mode);
  while ((spec = va_arg (ap, const gchar *)))
    g_assert_true (gpuprof_sweep_add_var (s, spec, NULL));
  va_end (ap);
  return s;
}

static void
test_expand (void)
{
  GpuprofSweep *s = sweep_with ("x", GPUPROF_SWEEP_GRID, "streams=3",
      "batch=2", NULL);
  const gchar *values[] = { "3", "2", NULL };
  GError *err = NULL;
  gchar *t;

  t = gpuprof_sweep_expand ("mux batch-size={batch} {for i in streams: "
      "src{i} ! m.sink_{i} } caps=format={ I420, NV12 } {}", s, values, &err);
  g_assert_no_error (err);
  g_assert_cmpstr (t, ==, "mux batch-size=2  src0 ! m.sink_0  src1 ! "
      "m.sink_1  src2 ! m.sink_2  caps=format={ I420, NV12 } {}");
  g_free (t);

  /* nested: the loop body sees the loop index and the variables */
  t = gpuprof_sweep_expand ("{for k in batch:[{k}/{streams}]}", s, values,
      &err);
  g_assert_no_error (err);
  g_assert_cmpstr (t, ==, "[0/3][1/3]");
  g_free (t);

  g_assert_null (gpuprof_sweep_expand ("a {batchsize} b", s, values, &err));
  g_assert_nonnull (strstr (err->message, "{batchsize}"));
  g_assert_nonnull (strstr (err->message, "streams, batch"));
  g_clear_error (&err);

  g_assert_null (gpuprof_sweep_expand ("{for i in nope: x}", s, values,
          &err));
  g_assert_nonnull (strstr (err->message, "nope"));
  g_clear_error (&err);
  g_assert_null (gpuprof_sweep_expand ("{for i of streams: x}", s, values,
          &err));
  g_assert_nonnull (strstr (err->message, "{for NAME in VARIABLE: TEXT}"));
  g_clear_error (&err);
  gpuprof_sweep_free (s);
}

static void
test_vars (void)
{
  GpuprofSweep *s = gpuprof_sweep_new ();
  GpuprofSweepVar *v;
  GError *err = NULL;

  g_assert_true (gpuprof_sweep_add_var (s, "batch=1..16", NULL));
  v = g_ptr_array_index (s->vars, 0);
  g_assert_cmpuint (g_strv_length (v->values), ==, 5);
  g_assert_cmpstr (v->values[4], ==, "16");
  g_assert_true (gpuprof_sweep_add_var (s, "streams=1, 4 ,16", NULL));
  v = g_ptr_array_index (s->vars, 1);
  g_assert_cmpstr (v->values[1], ==, "4");

  g_assert_false (gpuprof_sweep_add_var (s, "batch=2", &err));
  g_assert_nonnull (strstr (err->message, "twice"));
  g_clear_error (&err);
  g_assert_false (gpuprof_sweep_add_var (s, "novalue", &err));
  g_assert_nonnull (strstr (err->message, "NAME=V1,V2"));
  g_clear_error (&err);
  g_assert_false (gpuprof_sweep_add_var (s, "x=8..2", &err));
  g_assert_nonnull (strstr (err->message, "A..B"));
  g_clear_error (&err);
  g_assert_false (gpuprof_sweep_add_var (s, "y=1,,2", &err));
  g_assert_nonnull (strstr (err->message, "empty"));
  g_clear_error (&err);
  gpuprof_sweep_free (s);
}

static void
test_check (void)
{
  GpuprofSweep *s;
  GError *err = NULL;

  s = sweep_with ("{streams}", GPUPROF_SWEEP_PLATEAU, "streams=4", NULL);
  g_assert_false (gpuprof_sweep_check (s, &err));
  g_assert_nonnull (strstr (err->message, "--set batch="));
  g_clear_error (&err);
  gpuprof_sweep_free (s);

  s = sweep_with ("{batch}", GPUPROF_SWEEP_PLATEAU, "batch=a,b", NULL);
  g_assert_false (gpuprof_sweep_check (s, &err));
  g_assert_nonnull (strstr (err->message, "whole numbers"));
  g_clear_error (&err);
  gpuprof_sweep_free (s);

  s = sweep_with ("{streams}", GPUPROF_SWEEP_MAX_STREAMS, "streams=4", NULL);
  s->fps_floor = 25;
  g_assert_false (gpuprof_sweep_check (s, &err));
  g_assert_nonnull (strstr (err->message, "do not --set"));
  g_clear_error (&err);
  gpuprof_sweep_free (s);

  s = sweep_with ("{streams}", GPUPROF_SWEEP_MAX_STREAMS, NULL);
  g_assert_false (gpuprof_sweep_check (s, &err));
  g_assert_nonnull (strstr (err->message, "--fps-floor"));
  g_clear_error (&err);
  s->fps_floor = 25;
  g_assert_true (gpuprof_sweep_check (s, NULL));
  gpuprof_sweep_free (s);

  /* the template is expanded once up front: a typo fails before any run */
  s = sweep_with ("{strems}", GPUPROF_SWEEP_GRID, "streams=1", NULL);
  g_assert_false (gpuprof_sweep_check (s, &err));
  g_assert_nonnull (strstr (err->message, "{strems}"));
  g_clear_error (&err);
  gpuprof_sweep_free (s);
}

/* planted throughput: sources give 30 fps per stream; one shared stage
 * takes 'cost' ms per batch of 'batch' frames: fps = min (30 n, 1000 b /
 * cost); or, without a batch variable, 'capacity' fps shared by all */
typedef struct
{
  gdouble cost_ms;
  gdouble capacity;
  guint calls;
  guint stop_at;                /* measure returns FALSE at this call */
} Plant;

static guint64
value_of (GpuprofSweep * s, GpuprofSweepPoint * pt, const gchar * name)
{
  gint i = gpuprof_sweep_var_index (s, name);

  return i < 0 ? 0 : g_ascii_strtoull (pt->values[i], NULL, 10);
}

static gboolean
planted (GpuprofSweep * s, GpuprofSweepPoint * pt, gpointer data)
{
  Plant *p = data;
  guint64 n = value_of (s, pt, "streams"), b = value_of (s, pt, "batch");
  gdouble fps = 30.0 * n;

  if (++p->calls == p->stop_at)
    return FALSE;
  gdouble stage_fps = b ? 1000.0 * b / p->cost_ms : G_MAXDOUBLE;

  if (b)
    fps = MIN (fps, stage_fps);
  if (p->capacity > 0)
    fps = MIN (fps, p->capacity);
  /* what the run's verdict says: the cameras pace it, or the stage */
  g_free (pt->limit_kind);
  g_free (pt->limit_what);
  pt->limit_kind = g_strdup (fps < stage_fps ? "input" : "stage");
  pt->limit_what = g_strdup (fps < stage_fps ? "p/cam0" : "p/infer");
  pt->limit_headroom = stage_fps / fps;
  pt->done = TRUE;
  pt->streams = n;
  pt->fps = fps;
  pt->fps_per_stream = fps / n;
  return TRUE;
}

static const gchar *
point_value (GpuprofSweep * s, guint i, const gchar * name)
{
  GpuprofSweepPoint *pt = g_ptr_array_index (s->points, i);

  return pt->values[gpuprof_sweep_var_index (s, name)];
}

static void
test_plateau (void)
{
  GpuprofSweep *s = sweep_with ("{streams} {batch}", GPUPROF_SWEEP_PLATEAU,
      "streams=4,16", "batch=1..32", NULL);
  Plant p = { 20, 0, 0, 0 };
  GpuprofSweepResult *r;

  g_assert_true (gpuprof_sweep_check (s, NULL));
  g_assert_cmpuint (gpuprof_sweep_estimate_points (s), ==, 12);
  gpuprof_sweep_run (s, planted, &p);
  g_assert_false (s->interrupted);
  g_assert_cmpuint (s->results->len, ==, 2);
  /* 4 streams: 50, 100, 120, 120 fps -> plateau at 4, batch 8 run, 16 not */
  r = g_ptr_array_index (s->results, 0);
  g_assert_cmpstr (r->group[0], ==, "streams=4");
  g_assert_cmpstr (r->answer, ==, "4");
  g_assert_nonnull (strstr (r->note, "batch=8 gave +0.0%"));
  /* why it flattens: the cameras' 120 fps pace it, the stage has room */
  g_assert_nonnull (strstr (r->note, "limit there: input p/cam0 3.33x"));
  /* 16 streams: 50 ... 400, 480, 480 -> plateau at 16 */
  r = g_ptr_array_index (s->results, 1);
  g_assert_cmpstr (r->answer, ==, "16");
  g_assert_cmpuint (s->points->len, ==, 4 + 6);
  g_assert_cmpstr (point_value (s, 3, "batch"), ==, "8");
  g_assert_cmpstr (point_value (s, 4, "streams"), ==, "16");
  gpuprof_sweep_free (s);

  /* never flattens: the last value, said so */
  s = sweep_with ("{streams} {batch}", GPUPROF_SWEEP_PLATEAU, "streams=64",
      "batch=1..8", NULL);
  gpuprof_sweep_run (s, planted, &p);
  r = g_ptr_array_index (s->results, 0);
  g_assert_cmpstr (r->answer, ==, "8");
  g_assert_nonnull (strstr (r->note, "no plateau up to batch=8"));
  gpuprof_sweep_free (s);
}

static void
test_max_streams (void)
{
  GpuprofSweep *s = sweep_with ("{streams}", GPUPROF_SWEEP_MAX_STREAMS, NULL);
  Plant p = { 0, 110, 0, 0 };
  const gchar *order[] = { "1", "2", "4", "8", "6", "5" };
  GpuprofSweepResult *r;
  guint i;

  s->fps_floor = 20;
  s->max_streams = 64;
  g_assert_true (gpuprof_sweep_check (s, NULL));
  gpuprof_sweep_run (s, planted, &p);
  /* 110 fps shared: 5 streams get 22 each, 6 get 18.3 */
  r = g_ptr_array_index (s->results, 0);
  g_assert_cmpstr (r->answer, ==, "5");
  g_assert_nonnull (strstr (r->note, "6 streams fell below"));
  g_assert_cmpuint (s->points->len, ==, G_N_ELEMENTS (order));
  for (i = 0; i < G_N_ELEMENTS (order); i++)
    g_assert_cmpstr (point_value (s, i, "streams"), ==, order[i]);
  gpuprof_sweep_free (s);

  /* holds everywhere: stops at --max-streams, not beyond */
  s = sweep_with ("{streams}", GPUPROF_SWEEP_MAX_STREAMS, NULL);
  s->fps_floor = 20;
  s->max_streams = 12;
  g_assert_true (gpuprof_sweep_check (s, NULL));
  p.capacity = 0;
  gpuprof_sweep_run (s, planted, &p);
  r = g_ptr_array_index (s->results, 0);
  g_assert_cmpstr (r->answer, ==, "12");
  g_assert_cmpstr (point_value (s, s->points->len - 1, "streams"), ==, "12");
  g_assert_nonnull (strstr (r->note, "--max-streams 12"));
  gpuprof_sweep_free (s);

  /* not even one stream: 0 */
  s = sweep_with ("{streams}", GPUPROF_SWEEP_MAX_STREAMS, NULL);
  s->fps_floor = 40;
  g_assert_true (gpuprof_sweep_check (s, NULL));
  gpuprof_sweep_run (s, planted, &p);
  r = g_ptr_array_index (s->results, 0);
  g_assert_cmpstr (r->answer, ==, "0");
  g_assert_cmpuint (s->points->len, ==, 1);
  gpuprof_sweep_free (s);
}

static void
test_grid_interrupt (void)
{
  GpuprofSweep *s = sweep_with ("{streams} {batch}", GPUPROF_SWEEP_GRID,
      "streams=1,2", "batch=1,2,4", NULL);
  Plant p = { 10, 0, 0, 0 };
  JsonParser *parser = json_parser_new ();
  JsonObject *root;
  gchar *text, **lines;

  g_assert_cmpuint (gpuprof_sweep_estimate_points (s), ==, 6);
  gpuprof_sweep_run (s, planted, &p);
  g_assert_cmpuint (s->points->len, ==, 6);
  /* the first variable is the outer loop */
  g_assert_cmpstr (point_value (s, 2, "streams"), ==, "1");
  g_assert_cmpstr (point_value (s, 2, "batch"), ==, "4");
  g_assert_cmpstr (point_value (s, 3, "streams"), ==, "2");
  gpuprof_sweep_free (s);

  /* Ctrl-C during the fourth run: three kept, said so */
  s = sweep_with ("{streams} {batch}", GPUPROF_SWEEP_GRID, "streams=1,2",
      "batch=1,2,4", NULL);
  p.calls = 0;
  p.stop_at = 4;
  gpuprof_sweep_run (s, planted, &p);
  g_assert_true (s->interrupted);
  g_assert_cmpuint (s->points->len, ==, 3);
  text = gpuprof_sweep_format_table (s);
  g_assert_nonnull (strstr (text, "interrupted"));
  g_free (text);
  text = gpuprof_sweep_to_json (s);
  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "schema"), ==,
      GPUPROF_SWEEP_SCHEMA);
  g_assert_true (json_object_get_boolean_member (root, "interrupted"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (root,
              "points")), ==, 3);
  g_free (text);
  text = gpuprof_sweep_to_csv (s);
  /* header + 3 rows */
  lines = g_strsplit (text, "\r\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 5);
  g_strfreev (lines);
  g_assert_true (g_str_has_prefix (text, "streams,batch,status,fps,"));
  g_free (text);
  g_object_unref (parser);
  gpuprof_sweep_free (s);
}

/* figures from a run summary: frames from the mux, fps over the
 * pipeline's wall time, GPU per batch from the stages */
static void
test_measure (void)
{
  GpuprofSnapshot *snap = gpuprof_snapshot_new ("pipeline0");
  GpuprofBatchRow b = { 0 };
  GpuprofStageRow st = { 0 }, st2 = { 0 };
  GpuprofElementRow sink = { 0 };
  GpuprofAdviceRow a = { 0 };
  GpuprofSweepPoint pt = { 0 };

  snap->wall_ns = 2 * GST_SECOND;
  b.path = g_strdup ("pipeline0/m");
  b.frames = 240;
  b.batches = 60;
  b.inputs = 4;
  b.batch_size = 4;
  b.fill = 1.0;
  b.latency_p50_ns = 20 * GST_MSECOND;
  b.latency_p99_ns = 25 * GST_MSECOND;
  g_array_append_val (snap->batches, b);
  st.path = g_strdup ("pipeline0/infer");
  st.gpu_ns = 120 * GST_MSECOND;
  st.limiting = TRUE;
  g_array_append_val (snap->stages, st);
  st2.path = g_strdup ("pipeline0/osd");
  st2.gpu_ns = 60 * GST_MSECOND;
  g_array_append_val (snap->stages, st2);
  /* the sink gets 60 batches: not the frame count */
  sink.path = g_strdup ("pipeline0/sink");
  sink.role = g_strdup ("sink");
  sink.buffers_in = 60;
  g_array_append_val (snap->elements, sink);
  a.stage = g_strdup ("pipeline0/m");
  a.setting = g_strdup ("batch-size=8");
  g_array_append_val (snap->advice, a);
  snap->limit_kind = g_strdup ("clock");
  snap->limit_what = g_strdup ("pipeline0/sink");
  snap->limit_utilisation = 0.625;
  snap->limit_headroom = 1.6;
  snap->next_kind = g_strdup ("stage");
  snap->next_what = g_strdup ("pipeline0/infer");

  gpuprof_sweep_point_measure (&pt, snap, 0);
  g_assert_cmpuint (pt.frames, ==, 240);
  g_assert_cmpuint (pt.streams, ==, 4);
  g_assert_cmpfloat_with_epsilon (pt.fps, 120.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (pt.fps_per_stream, 30.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (pt.latency_p99_ms, 25.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (pt.gpu_ms_per_batch, 3.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (pt.gpu_ms_per_frame, 0.75, 1e-9);
  g_assert_cmpfloat_with_epsilon (pt.fill, 1.0, 1e-9);
  g_assert_cmpstr (pt.limiting, ==, "pipeline0/infer");
  g_assert_cmpstr (pt.advice, ==, "pipeline0/m: batch-size=8");
  /* the point carries the run's verdict */
  g_assert_cmpstr (pt.limit_kind, ==, "clock");
  g_assert_cmpstr (pt.limit_what, ==, "pipeline0/sink");
  g_assert_cmpfloat_with_epsilon (pt.limit_headroom, 1.6, 1e-9);
  g_assert_cmpstr (pt.next_what, ==, "pipeline0/infer");
  /* the streams variable wins over the mux's inputs */
  gpuprof_sweep_point_measure (&pt, snap, 8);
  g_assert_cmpfloat_with_epsilon (pt.fps_per_stream, 15.0, 1e-9);
  g_free (pt.limiting);
  g_free (pt.advice);
  g_free (pt.limit_kind);
  g_free (pt.limit_what);
  g_free (pt.next_what);
  gpuprof_snapshot_free (snap);

  /* no mux: the sinks' buffers; no GPU, latency or fill figures */
  snap = gpuprof_snapshot_new ("pipeline0");
  snap->wall_ns = GST_SECOND;
  memset (&sink, 0, sizeof (sink));
  sink.path = g_strdup ("pipeline0/sink");
  sink.role = g_strdup ("sink");
  sink.buffers_in = 50;
  g_array_append_val (snap->elements, sink);
  snap->bottleneck = g_strdup ("pipeline0/dec");
  memset (&pt, 0, sizeof (pt));
  gpuprof_sweep_point_measure (&pt, snap, 0);
  g_assert_cmpfloat_with_epsilon (pt.fps, 50.0, 1e-9);
  g_assert_cmpuint (pt.streams, ==, 1);
  g_assert_cmpfloat (pt.latency_p50_ms, <, 0);
  g_assert_cmpfloat (pt.gpu_ms_per_batch, <, 0);
  g_assert_cmpfloat (pt.fill, <, 0);
  g_assert_cmpstr (pt.limiting, ==, "pipeline0/dec");
  g_assert_null (pt.advice);
  g_free (pt.limiting);
  gpuprof_snapshot_free (snap);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sweep/expand", test_expand);
  g_test_add_func ("/sweep/vars", test_vars);
  g_test_add_func ("/sweep/check", test_check);
  g_test_add_func ("/sweep/plateau", test_plateau);
  g_test_add_func ("/sweep/max-streams", test_max_streams);
  g_test_add_func ("/sweep/grid-interrupt", test_grid_interrupt);
  g_test_add_func ("/sweep/measure", test_measure);
  return g_test_run ();
}
