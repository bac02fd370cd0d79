/* gpuprof: time series for the HTML report (see gpuprof-series.h).
 *
 * A trace's events come per drain, not sorted, and a trace may hold hours:
 * bins start 1 ms wide and double (pairs merged) whenever more than
 * MAX_BINS would be needed, so memory stays bounded by the number of
 * elements, not the run's length. */
#include "gpuprof-series.h"
#include "gpuprof-html.h"

#include <errno.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof-json.h"

G_DEFINE_QUARK (gpuprof-load-error-quark, gpuprof_load_error);

#define BASE_WIDTH_NS G_GUINT64_CONSTANT (1000000)
#define MAX_BINS 1024
/* a level bin without a sample: the level carries over from before */
#define NO_LEVEL G_MAXUINT64

/* a level track's latest sample in a bin: what carries over to the bins
 * without one (events come out of order: the latest by time, not by
 * arrival) */
typedef struct
{
  guint64 ts, value;
} Sample;

typedef struct
{
  gchar *path;
  GArray *bins;                 /* guint64: buffers, or the most held */
  GArray *last;                 /* Sample per bin, level tracks only */
  gboolean level;
} Track;

struct _GpuprofSeries
{
  GHashTable *tracks;           /* "b:" or "l:" + path -> Track */
  guint64 origin, width, nbins;
};

static void
track_free (Track * t)
{
  g_free (t->path);
  g_array_unref (t->bins);
  g_array_unref (t->last);
  g_free (t);
}

GpuprofSeries *
gpuprof_series_new (void)
{
  GpuprofSeries *s = g_new0 (GpuprofSeries, 1);

  s->tracks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      (GDestroyNotify) track_free);
  return s;
}

void
gpuprof_series_free (GpuprofSeries * s)
{
  if (s == NULL)
    return;
  g_hash_table_unref (s->tracks);
  g_free (s);
}

static guint64
fill_of (const Track * t)
{
  return t->level ? NO_LEVEL : 0;
}

static guint64
combine (const Track * t, guint64 a, guint64 b)
{
  if (!t->level)
    return a + b;
  if (a == NO_LEVEL)
    return b;
  return b == NO_LEVEL ? a : MAX (a, b);
}

static const Sample no_sample = { 0, NO_LEVEL };

static Sample
later (Sample a, Sample b)
{
  if (a.value == NO_LEVEL)
    return b;
  return b.value != NO_LEVEL && b.ts >= a.ts ? b : a;
}

/* bins twice as wide: pairs merged */
static void
widen (GpuprofSeries * s)
{
  GHashTableIter it;
  Track *t;

  g_hash_table_iter_init (&it, s->tracks);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) & t)) {
    guint64 *b = (guint64 *) t->bins->data;
    guint j, n = (t->bins->len + 1) / 2;

    Sample *l = (Sample *) t->last->data;

    for (j = 0; j < n; j++) {
      gboolean pair = 2 * j + 1 < t->bins->len;

      b[j] = combine (t, b[2 * j], pair ? b[2 * j + 1] : fill_of (t));
      if (t->level)
        l[j] = later (l[2 * j], pair ? l[2 * j + 1] : no_sample);
    }
    g_array_set_size (t->bins, n);
    if (t->level)
      g_array_set_size (t->last, n);
  }
  s->width *= 2;
  s->nbins = (s->nbins + 1) / 2;
}

/* bins needed to hold @ts as well */
static guint64
span_with (const GpuprofSeries * s, guint64 ts)
{
  if (ts < s->origin)
    return (s->origin - ts + s->width - 1) / s->width + s->nbins;
  return MAX (s->nbins, (ts - s->origin) / s->width + 1);
}

/* the bin of @ts, making room for it */
static guint
place (GpuprofSeries * s, guint64 ts)
{
  if (s->width == 0) {
    s->width = BASE_WIDTH_NS;
    s->origin = ts - ts % BASE_WIDTH_NS;
  }
  while (span_with (s, ts) > MAX_BINS)
    widen (s);
  if (ts < s->origin) {
    /* an event from before the first one seen: earlier bins in front */
    guint64 k = (s->origin - ts + s->width - 1) / s->width;
    GHashTableIter it;
    Track *t;

    g_hash_table_iter_init (&it, s->tracks);
    while (g_hash_table_iter_next (&it, NULL, (gpointer *) & t)) {
      guint64 fill = fill_of (t), i;

      for (i = 0; i < k; i++) {
        g_array_prepend_val (t->bins, fill);
        if (t->level)
          g_array_prepend_val (t->last, no_sample);
      }
    }
    s->origin -= k * s->width;
    s->nbins += k;
  }
  s->nbins = MAX (s->nbins, (ts - s->origin) / s->width + 1);
  return (ts - s->origin) / s->width;
}

static Track *
track (GpuprofSeries * s, const gchar * path, gboolean level)
{
  gchar *key = g_strconcat (level ? "l:" : "b:", path, NULL);
  Track *t = g_hash_table_lookup (s->tracks, key);

  if (t == NULL) {
    t = g_new0 (Track, 1);
    t->path = g_strdup (path);
    t->level = level;
    t->bins = g_array_new (FALSE, FALSE, sizeof (guint64));
    t->last = g_array_new (FALSE, FALSE, sizeof (Sample));
    g_hash_table_insert (s->tracks, key, t);
  } else {
    g_free (key);
  }
  return t;
}

static void
add (GpuprofSeries * s, const gchar * path, gboolean level, guint64 ts,
    guint64 v)
{
  guint i = place (s, ts);
  Track *t = track (s, path, level);
  guint64 fill = fill_of (t);
  guint64 *b;

  while (t->bins->len <= i) {
    g_array_append_val (t->bins, fill);
    if (level)
      g_array_append_val (t->last, no_sample);
  }
  b = &g_array_index (t->bins, guint64, i);
  *b = combine (t, *b, v);
  if (level) {
    Sample now = { ts, v };
    Sample *l = &g_array_index (t->last, Sample, i);

    *l = later (*l, now);
  }
}

void
gpuprof_series_add_buffers (GpuprofSeries * s, const gchar * path,
    guint64 ts_ns, guint64 n)
{
  add (s, path, FALSE, ts_ns, n);
}

void
gpuprof_series_add_level (GpuprofSeries * s, const gchar * path,
    guint64 ts_ns, guint64 level)
{
  add (s, path, TRUE, ts_ns, level);
}

static gint
track_cmp (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 ((*(Track **) a)->path, (*(Track **) b)->path);
}

static guint64
bin_at (const Track * t, guint i)
{
  return i < t->bins->len ? g_array_index (t->bins, guint64, i) : fill_of (t);
}

/* one point per bin: t_s is the bin's end in seconds from the first bin's
 * start; a queue's level is the most it held in the bin; a bin without a
 * sample has the latest level of the bins before */
gchar *
gpuprof_series_to_json (GpuprofSeries * s, guint max_points)
{
  GPtrArray *tracks, *points;
  GHashTableIter it;
  gpointer t;
  guint64 *carry;
  gdouble width_s;
  gchar *json;
  guint i, k;

  if (s->nbins == 0)
    return NULL;
  while (s->nbins > MAX (max_points, 1))
    widen (s);
  tracks = g_ptr_array_new ();
  g_hash_table_iter_init (&it, s->tracks);
  while (g_hash_table_iter_next (&it, NULL, &t))
    g_ptr_array_add (tracks, t);
  g_ptr_array_sort (tracks, track_cmp);
  carry = g_new0 (guint64, tracks->len);
  width_s = s->width / 1e9;
  points = g_ptr_array_new_with_free_func (g_free);
  for (i = 0; i < s->nbins; i++) {
    GString *p = g_string_new ("{\"t_s\": ");
    gboolean first = TRUE;

    gpuprof_json_append_double (p, (i + 1) * width_s);
    g_string_append (p, ", \"interval_s\": ");
    gpuprof_json_append_double (p, width_s);
    g_string_append (p, ", \"interval\": {\"elements\": [");
    for (k = 0; k < tracks->len; k++) {
      Track *tr = g_ptr_array_index (tracks, k);
      guint64 n = bin_at (tr, i);

      if (tr->level)
        continue;
      g_string_append (p, first ? "{\"path\": " : ", {\"path\": ");
      first = FALSE;
      gpuprof_json_append_string (p, tr->path);
      g_string_append_printf (p, ", \"buffers\": %" G_GUINT64_FORMAT
          ", \"fps\": ", n);
      gpuprof_json_append_double (p, n / width_s);
      g_string_append_c (p, '}');
    }
    g_string_append (p, "], \"queues\": [");
    first = TRUE;
    for (k = 0; k < tracks->len; k++) {
      Track *tr = g_ptr_array_index (tracks, k);

      if (!tr->level)
        continue;
      g_string_append (p, first ? "{\"path\": " : ", {\"path\": ");
      first = FALSE;
      gpuprof_json_append_string (p, tr->path);
      g_string_append_printf (p, ", \"level_buffers\": %" G_GUINT64_FORMAT
          "}", bin_at (tr, i) != NO_LEVEL ? bin_at (tr, i) : carry[k]);
      if (i < tr->last->len
          && g_array_index (tr->last, Sample, i).value != NO_LEVEL)
        carry[k] = g_array_index (tr->last, Sample, i).value;
    }
    g_string_append (p, "]}}");
    g_ptr_array_add (points, g_string_free (p, FALSE));
  }
  json = gpuprof_html_series_json ("trace", points);
  g_ptr_array_unref (points);
  g_ptr_array_unref (tracks);
  g_free (carry);
  return json;
}

/* --- live JSON Lines ------------------------------------------------------ */

/* one line of <stats>-live.jsonl without "cumulative", or NULL when it is
 * another pipeline's; *final says whether it ended its run */
static gchar *
live_point (JsonObject * obj, const gchar * pipeline, gboolean * final)
{
  JsonNode *node;
  gchar *text;

  if (pipeline && g_strcmp0 (json_object_get_string_member_with_default (obj,
              "pipeline", ""), pipeline) != 0)
    return NULL;
  *final = json_object_get_boolean_member_with_default (obj, "final", FALSE);
  json_object_remove_member (obj, "cumulative");
  node = json_node_init_object (json_node_alloc (), obj);
  text = json_to_string (node, FALSE);
  json_node_unref (node);
  return text;
}

gchar *
gpuprof_series_from_live (const gchar * path, const gchar * pipeline,
    GError ** err)
{
  FILE *f = fopen (path, "r");
  JsonParser *parser;
  GPtrArray *points;
  gchar *buf = NULL, *json = NULL;
  gsize cap = 0;
  guint64 lineno = 0, bad = 0;
  gboolean ended = FALSE;

  if (f == NULL) {
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_READ, "%s: %s",
        path, g_strerror (errno));
    return NULL;
  }
  parser = json_parser_new ();
  points = g_ptr_array_new_with_free_func (g_free);
  while (getline (&buf, &cap, f) >= 0) {
    JsonNode *root;
    gboolean final = FALSE;
    gchar *p;

    lineno++;
    if (bad)
      break;                    /* only the last line may be cut off */
    g_strstrip (buf);
    if (!*buf)
      continue;
    if (!json_parser_load_from_data (parser, buf, -1, NULL)
        || !JSON_NODE_HOLDS_OBJECT (root = json_parser_get_root (parser))) {
      bad = lineno;
      continue;
    }
    p = live_point (json_node_get_object (root), pipeline, &final);
    if (p == NULL)
      continue;
    /* a new run of the pipeline: the page shows the last one */
    if (ended)
      g_ptr_array_set_size (points, 0);
    gpuprof_html_points_add (points, p);
    ended = final;
  }
  free (buf);
  fclose (f);
  g_object_unref (parser);
  if (bad && lineno > bad)
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SYNTAX,
        "%s:%" G_GUINT64_FORMAT ":1: not a JSON object (expected one live "
        "snapshot per line, docs/live.md)", path, bad);
  else if (points->len == 0)
    g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SCHEMA,
        "%s: no live snapshot of pipeline '%s'", path,
        pipeline ? pipeline : "");
  else
    json = gpuprof_html_series_json ("interval", points);
  g_ptr_array_unref (points);
  return json;
}
