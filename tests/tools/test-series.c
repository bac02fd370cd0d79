/* The time series of the HTML report (gst/outputs/gpuprof-series.c): events
 * in any order (a trace's come per drain, some from before the first one
 * read) land in the right bins as the bins widen; buffers are neither lost
 * nor counted twice; a queue's level keeps each bin's largest and carries
 * over bins without a sample; and the live JSON Lines give the last run of
 * the pipeline asked for. */
#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "gpuprof-html.h"
#include "gpuprof-series.h"
#include "gpuprof-summary-reader.h"

#define MS G_GUINT64_CONSTANT (1000000)

static JsonArray *
points_of (const gchar * json, JsonParser * parser)
{
  JsonObject *root;

  g_assert_nonnull (json);
  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  return json_object_get_array_member (root, "points");
}

static JsonObject *
row_of (JsonObject * point, const gchar * table, const gchar * path)
{
  JsonArray *rows = json_object_get_array_member (json_object_get_object_member
      (point, "interval"), table);
  guint i;

  for (i = 0; i < json_array_get_length (rows); i++) {
    JsonObject *r = json_array_get_object_element (rows, i);

    if (!g_strcmp0 (json_object_get_string_member (r, "path"), path))
      return r;
  }
  return NULL;
}

/* a buffer every 10 ms for 3 s from t = 5 s, given in a shuffled order that
 * starts in the middle (earlier bins are put in front later); a queue whose
 * level is the buffer's index % 7 during the first second only */
static void
test_bins (void)
{
  GpuprofSeries *s = gpuprof_series_new ();
  JsonParser *parser = json_parser_new ();
  GRand *rand = g_rand_new_with_seed (7);
  guint order[300], i, n, total = 0, maxlevel = 0;
  gdouble width;
  JsonArray *pts;
  gchar *json;

  for (i = 0; i < 300; i++)
    order[i] = i;
  for (i = 299; i > 0; i--) {
    guint j = g_rand_int_range (rand, 0, i + 1), t = order[i];

    order[i] = order[j];
    order[j] = t;
  }
  for (i = 0; i < 300; i++)
    if (order[i] == 150)
      order[i] = order[0], order[0] = 150;
  for (i = 0; i < 300; i++) {
    guint64 ts = 5000 * MS + order[i] * 10 * MS;

    gpuprof_series_add_buffers (s, "p/sink", ts, 1);
    if (order[i] < 100)
      gpuprof_series_add_level (s, "p/q", ts, order[i] % 7);
  }
  json = gpuprof_series_to_json (s, 32);
  pts = points_of (json, parser);
  n = json_array_get_length (pts);
  /* bins double from 1 ms: 3 s in at most 32 bins is 128 ms wide */
  g_assert_cmpuint (n, <=, 32);
  g_assert_cmpuint (n, >=, 16);
  width = json_object_get_double_member (json_array_get_object_element (pts,
          0), "interval_s");
  g_assert_cmpfloat_with_epsilon (width, 0.128, 1e-9);
  for (i = 0; i < n; i++) {
    JsonObject *p = json_array_get_object_element (pts, i);
    JsonObject *b = row_of (p, "elements", "p/sink");
    JsonObject *q = row_of (p, "queues", "p/q");
    guint64 c = json_object_get_int_member (b, "buffers");
    guint64 level = json_object_get_int_member (q, "level_buffers");

    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (p, "t_s"),
        (i + 1) * width, 1e-9);
    g_assert_cmpfloat_with_epsilon (json_object_get_double_member (b, "fps"),
        c / width, 1e-9);
    /* one buffer each 10 ms: 12 or 13 in each full bin of 128 ms; the
     * first and last bins may be cut by the run's ends */
    if (i > 0 && i + 1 < n)
      g_assert_true (c == 12 || c == 13);
    total += c;
    /* the level: the largest of the bin during the first second (every
     * full bin there sees 0..6), then the last sample carried on; the
     * first bin starts less than a bin before the first event */
    if (i > 0 && (i + 1) * width < 0.9)
      g_assert_cmpuint (level, ==, 6);
    if (i * width > 1.2)
      g_assert_cmpuint (level, ==, 99 % 7);
    maxlevel = MAX (maxlevel, level);
  }
  g_assert_cmpuint (total, ==, 300);
  g_assert_cmpuint (maxlevel, ==, 6);
  g_free (json);
  g_rand_free (rand);
  g_object_unref (parser);
  gpuprof_series_free (s);
}

/* more bins than MAX_BINS before any output: the series stays bounded and
 * the count exact */
static void
test_long (void)
{
  GpuprofSeries *s = gpuprof_series_new ();
  JsonParser *parser = json_parser_new ();
  guint64 total = 0;
  JsonArray *pts;
  gchar *json;
  guint i;

  /* an hour, a buffer a second, then one from before it all */
  for (i = 1; i <= 3600; i++)
    gpuprof_series_add_buffers (s, "p/sink", (guint64) i * 1000 * MS, 1);
  gpuprof_series_add_buffers (s, "p/sink", 0, 1);
  json = gpuprof_series_to_json (s, 32);
  pts = points_of (json, parser);
  for (i = 0; i < json_array_get_length (pts); i++)
    total += json_object_get_int_member (row_of (json_array_get_object_element
            (pts, i), "elements", "p/sink"), "buffers");
  g_assert_cmpuint (total, ==, 3601);
  g_assert_cmpuint (json_array_get_length (pts), <=, 32);
  g_free (json);
  g_object_unref (parser);
  gpuprof_series_free (s);
  s = gpuprof_series_new ();
  g_assert_null (gpuprof_series_to_json (s, 32));
  gpuprof_series_free (s);
}

/* two runs of p, one of another pipeline between: the last run of p, the
 * "cumulative" object dropped */
static void
test_live (void)
{
  gchar *dir = g_dir_make_tmp ("gpuprof-series-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "run-live.jsonl", NULL);
  JsonParser *parser = json_parser_new ();
  GError *err = NULL;
  JsonArray *pts;
  gchar *json;
  const gchar *lines =
      "{\"seq\": 1, \"t_s\": 0.5, \"interval_s\": 0.5, \"final\": false, \"pipeline\": \"p\", \"interval\": {\"elements\": []}, \"cumulative\": {}}\n"
      "{\"seq\": 2, \"t_s\": 0.7, \"interval_s\": 0.2, \"final\": true, \"pipeline\": \"p\", \"interval\": {\"elements\": []}, \"cumulative\": {}}\n"
      "{\"seq\": 3, \"t_s\": 1.0, \"interval_s\": 0.5, \"final\": false, \"pipeline\": \"o\", \"interval\": {\"elements\": []}, \"cumulative\": {}}\n"
      "{\"seq\": 4, \"t_s\": 1.5, \"interval_s\": 0.5, \"final\": false, \"pipeline\": \"p\", \"interval\": {\"elements\": [{\"path\": \"p/s\", \"fps\": 30.0}]}, \"cumulative\": {}}\n"
      "{\"seq\": 5, \"t_s\": 2.0, \"interval_s\": 0.5, \"final\": true, \"pipeline\": \"p\", \"interval\": {\"elements\": []}, \"cumulative\": {}}\n"
      "{\"seq\": 6, \"t_s\": 2.1, \"inter";   /* cut off by a kill */

  g_assert_true (g_file_set_contents (path, lines, -1, NULL));
  json = gpuprof_series_from_live (path, "p", &err);
  g_assert_no_error (err);
  pts = points_of (json, parser);
  g_assert_cmpuint (json_array_get_length (pts), ==, 2);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element
          (pts, 0), "seq"), ==, 4);
  g_assert_false (json_object_has_member (json_array_get_object_element (pts,
              0), "cumulative"));
  g_assert_cmpfloat (json_object_get_double_member (row_of
          (json_array_get_object_element (pts, 0), "elements", "p/s"), "fps"),
      ==, 30.0);
  g_free (json);
  /* no line of that pipeline, a missing file: errors naming the file */
  g_assert_null (gpuprof_series_from_live (path, "x", &err));
  g_assert_true (strstr (err->message, "run-live.jsonl") != NULL);
  g_clear_error (&err);
  g_remove (path);
  g_assert_null (gpuprof_series_from_live (path, "p", &err));
  g_assert_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_READ);
  g_clear_error (&err);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
  g_object_unref (parser);
}

/* a long run: at most GPUPROF_HTML_MAX_POINTS points, every other one
 * dropped when full, the first and the last line kept, in order */
static void
test_live_long (void)
{
  gchar *dir = g_dir_make_tmp ("gpuprof-series-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "long-live.jsonl", NULL);
  JsonParser *parser = json_parser_new ();
  GString *s = g_string_new (NULL);
  GError *err = NULL;
  gint64 prev = 0;
  JsonArray *pts;
  gchar *json;
  guint i, n;

  for (i = 1; i <= 3000; i++)
    g_string_append_printf (s, "{\"seq\": %u, \"pipeline\": \"p\", "
        "\"interval\": {\"elements\": []}, \"cumulative\": {}}\n", i);
  g_assert_true (g_file_set_contents (path, s->str, -1, NULL));
  json = gpuprof_series_from_live (path, "p", &err);
  g_assert_no_error (err);
  pts = points_of (json, parser);
  n = json_array_get_length (pts);
  g_assert_cmpuint (n, <=, GPUPROF_HTML_MAX_POINTS);
  g_assert_cmpuint (n, >=, GPUPROF_HTML_MAX_POINTS / 2);
  for (i = 0; i < n; i++) {
    gint64 seq = json_object_get_int_member (json_array_get_object_element
        (pts, i), "seq");

    g_assert_cmpint (seq, >, prev);
    prev = seq;
  }
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element
          (pts, 0), "seq"), ==, 1);
  g_assert_cmpint (prev, ==, 3000);
  g_free (json);
  g_remove (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
  g_string_free (s, TRUE);
  g_object_unref (parser);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/series/bins", test_bins);
  g_test_add_func ("/series/long", test_long);
  g_test_add_func ("/series/live", test_live);
  g_test_add_func ("/series/live-long", test_live_long);
  return g_test_run ();
}
