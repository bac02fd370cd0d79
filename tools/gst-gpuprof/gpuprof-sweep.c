/* gst-gpuprof sweep: templates, figures of a point, search modes, outputs.
 * See gpuprof-sweep.h and docs/sweep.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-sweep.h"
#include "gpuprof-summary.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

G_DEFINE_QUARK (gpuprof-sweep-error-quark, gpuprof_sweep_error);

static void
var_free (gpointer p)
{
  GpuprofSweepVar *v = p;

  g_free (v->name);
  g_strfreev (v->values);
  g_free (v);
}

static void
point_free (gpointer p)
{
  GpuprofSweepPoint *pt = p;

  g_strfreev (pt->values);
  g_free (pt->error);
  g_free (pt->summary);
  g_free (pt->limiting);
  g_free (pt->advice);
  g_free (pt->limit_kind);
  g_free (pt->limit_what);
  g_free (pt->next_what);
  g_free (pt);
}

static void
result_free (gpointer p)
{
  GpuprofSweepResult *r = p;

  g_strfreev (r->group);
  g_free (r->answer);
  g_free (r->note);
  g_free (r);
}

GpuprofSweep *
gpuprof_sweep_new (void)
{
  GpuprofSweep *s = g_new0 (GpuprofSweep, 1);

  s->vars = g_ptr_array_new_with_free_func (var_free);
  s->points = g_ptr_array_new_with_free_func (point_free);
  s->results = g_ptr_array_new_with_free_func (result_free);
  s->batch_var = g_strdup ("batch");
  s->streams_var = g_strdup ("streams");
  s->threshold = 0.05;
  s->max_streams = 64;
  return s;
}

void
gpuprof_sweep_free (GpuprofSweep * s)
{
  if (!s)
    return;
  g_free (s->template);
  g_free (s->batch_var);
  g_free (s->streams_var);
  g_ptr_array_unref (s->vars);
  g_ptr_array_unref (s->points);
  g_ptr_array_unref (s->results);
  g_free (s);
}

static gboolean
valid_name (const gchar * name, gsize len)
{
  gsize i;

  if (len == 0 || !(g_ascii_isalpha (name[0]) || name[0] == '_'))
    return FALSE;
  for (i = 1; i < len; i++)
    if (!(g_ascii_isalnum (name[i]) || name[i] == '_' || name[i] == '-'))
      return FALSE;
  return TRUE;
}

gint
gpuprof_sweep_var_index (const GpuprofSweep * s, const gchar * name)
{
  guint i;

  for (i = 0; i < s->vars->len; i++)
    if (strcmp (((GpuprofSweepVar *) g_ptr_array_index (s->vars, i))->name,
            name) == 0)
      return i;
  return -1;
}

static gboolean
parse_u64 (const gchar * s, guint64 * out)
{
  return g_ascii_string_to_unsigned (s, 10, 0, G_MAXUINT32, out, NULL);
}

/* "A..B": A, 2A, 4A ... up to B (the doubling people sweep batch sizes by) */
static GStrv
expand_range (const gchar * text)
{
  const gchar *dots = strstr (text, "..");
  gchar *lo_text;
  guint64 lo, hi, v;
  GPtrArray *out;
  gboolean ok;

  if (!dots)
    return NULL;
  lo_text = g_strndup (text, dots - text);
  ok = parse_u64 (lo_text, &lo) && parse_u64 (dots + 2, &hi) && lo >= 1
      && lo <= hi;
  g_free (lo_text);
  if (!ok)
    return NULL;
  out = g_ptr_array_new ();
  for (v = lo; v <= hi; v *= 2)
    g_ptr_array_add (out, g_strdup_printf ("%" G_GUINT64_FORMAT, v));
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_free (out, FALSE);
}

/**
 * gpuprof_sweep_add_var:
 * @spec: "name=v1,v2,..." or "name=A..B" (A, 2A, 4A ... <= B)
 *
 * Returns: FALSE with @err naming the bad part of @spec
 */
gboolean
gpuprof_sweep_add_var (GpuprofSweep * s, const gchar * spec, GError ** err)
{
  const gchar *eq = strchr (spec, '=');
  GpuprofSweepVar *v;
  guint i;

  if (!eq || !valid_name (spec, eq - spec)) {
    g_set_error (err, GPUPROF_SWEEP_ERROR, 0, "--set '%s': expected "
        "NAME=V1,V2,... or NAME=A..B (NAME: letters, digits, '_', '-')", spec);
    return FALSE;
  }
  v = g_new0 (GpuprofSweepVar, 1);
  v->name = g_strndup (spec, eq - spec);
  if (gpuprof_sweep_var_index (s, v->name) >= 0) {
    g_set_error (err, GPUPROF_SWEEP_ERROR, 0, "--set %s given twice", v->name);
    var_free (v);
    return FALSE;
  }
  if (strstr (eq + 1, "..")) {
    v->values = expand_range (eq + 1);
    if (!v->values) {
      g_set_error (err, GPUPROF_SWEEP_ERROR, 0, "--set '%s': a range is "
          "A..B with whole numbers 1 <= A <= B", spec);
      var_free (v);
      return FALSE;
    }
  } else {
    v->values = g_strsplit (eq + 1, ",", -1);
  }
  for (i = 0; v->values[i]; i++) {
    g_strstrip (v->values[i]);
    if (!*v->values[i]) {
      g_set_error (err, GPUPROF_SWEEP_ERROR, 0, "--set '%s': empty value",
          spec);
      var_free (v);
      return FALSE;
    }
  }
  if (i == 0) {
    g_set_error (err, GPUPROF_SWEEP_ERROR, 0, "--set '%s': no values", spec);
    var_free (v);
    return FALSE;
  }
  g_ptr_array_add (s->vars, v);
  return TRUE;
}

static gboolean
all_numbers (GStrv values)
{
  guint64 n;
  guint i;

  for (i = 0; values[i]; i++)
    if (!parse_u64 (values[i], &n))
      return FALSE;
  return TRUE;
}

/**
 * gpuprof_sweep_check:
 *
 * Checks the mode against the variables (and, for max-streams, adds the
 * streams variable the search fills in), and that the template expands.
 */
gboolean
gpuprof_sweep_check (GpuprofSweep * s, GError ** err)
{
  gint bi = gpuprof_sweep_var_index (s, s->batch_var);
  gint si = gpuprof_sweep_var_index (s, s->streams_var);
  GStrv probe;
  gchar *text;
  guint i;

  if (!s->template || !*s->template) {
    g_set_error (err, GPUPROF_SWEEP_ERROR, 0, "no pipeline template");
    return FALSE;
  }
  if (s->mode == GPUPROF_SWEEP_PLATEAU) {
    if (bi < 0) {
      g_set_error (err, GPUPROF_SWEEP_ERROR, 0, "--mode plateau searches "
          "the variable '%s': give its values with --set %s=1..32 (or name "
          "another with --batch-var)", s->batch_var, s->batch_var);
      return FALSE;
    }
    if (!all_numbers (((GpuprofSweepVar *) g_ptr_array_index (s->vars,
                    bi))->values)) {
      g_set_error (err, GPUPROF_SWEEP_ERROR, 0, "--mode plateau: the values "
          "of '%s' must be whole numbers, smallest first", s->batch_var);
      return FALSE;
    }
  }
  if (s->mode == GPUPROF_SWEEP_MAX_STREAMS) {
    GpuprofSweepVar *v;

    if (si >= 0) {
      g_set_error (err, GPUPROF_SWEEP_ERROR, 0, "--mode max-streams finds "
          "'%s' itself (doubling, then bisection, up to --max-streams): "
          "do not --set it", s->streams_var);
      return FALSE;
    }
    if (s->fps_floor <= 0) {
      g_set_error (err, GPUPROF_SWEEP_ERROR, 0, "--mode max-streams needs "
          "--fps-floor F: the frames per second each stream must keep");
      return FALSE;
    }
    v = g_new0 (GpuprofSweepVar, 1);
    v->name = g_strdup (s->streams_var);
    v->values = g_new0 (gchar *, 2);
    v->values[0] = g_strdup ("1");
    g_ptr_array_add (s->vars, v);
  }
  /* the template must expand with the first values */
  probe = g_new0 (gchar *, s->vars->len + 1);
  for (i = 0; i < s->vars->len; i++)
    probe[i] = g_strdup (((GpuprofSweepVar *) g_ptr_array_index (s->vars,
                i))->values[0]);
  text = gpuprof_sweep_expand (s->template, s, (const gchar * const *) probe,
      err);
  g_strfreev (probe);
  g_free (text);
  return text != NULL;
}

/* --- templates ----------------------------------------------------------- */

typedef struct
{
  const GpuprofSweep *sweep;
  const gchar *const *values;
  const gchar *loop_name;       /* innermost {for NAME in ...} */
  const gchar *loop_value;
} Scope;

static const gchar *
lookup (const Scope * sc, const gchar * name, gsize len)
{
  guint i;

  if (sc->loop_name && strlen (sc->loop_name) == len
      && strncmp (sc->loop_name, name, len) == 0)
    return sc->loop_value;
  for (i = 0; i < sc->sweep->vars->len; i++) {
    const gchar *n =
        ((GpuprofSweepVar *) g_ptr_array_index (sc->sweep->vars, i))->name;
    if (strlen (n) == len && strncmp (n, name, len) == 0)
      return sc->values[i];
  }
  return NULL;
}

static gchar *
known_names (const GpuprofSweep * s)
{
  GString *out = g_string_new (NULL);
  guint i;

  for (i = 0; i < s->vars->len; i++)
    g_string_append_printf (out, "%s%s", i ? ", " : "",
        ((GpuprofSweepVar *) g_ptr_array_index (s->vars, i))->name);
  return g_string_free (out, FALSE);
}

/* the closing brace of the group opened at @open, braces nested */
static const gchar *
closing_brace (const gchar * open)
{
  gint depth = 0;
  const gchar *p;

  for (p = open; *p; p++) {
    if (*p == '{')
      depth++;
    else if (*p == '}' && --depth == 0)
      return p;
  }
  return NULL;
}

static gboolean expand_into (GString * out, const gchar * text, gsize len,
    const Scope * sc, GError ** err);

/* "{for i in streams: TEXT}": TEXT once per 0..streams-1, {i} the index */
static gboolean
expand_for (GString * out, const gchar * body, gsize len, const Scope * sc,
    GError ** err)
{
  gchar **head = NULL, *head_text;
  const gchar *colon = memchr (body, ':', len);
  const gchar *count_text;
  gchar *count_name;
  guint64 n, k;
  gboolean ok = TRUE;

  if (colon) {
    /* "for" NAME "in" COUNT */
    head_text = g_strndup (body, colon - body);
    head = g_strsplit (g_strstrip (head_text), " ", -1);
    g_free (head_text);
  }
  if (!head || g_strv_length (head) != 4 || strcmp (head[0], "for") != 0
      || strcmp (head[2], "in") != 0 || !valid_name (head[1],
          strlen (head[1]))) {
    g_set_error (err, GPUPROF_SWEEP_ERROR, 0, "template: '{%.*s}' is not "
        "{for NAME in VARIABLE: TEXT}", (gint) len, body);
    g_strfreev (head);
    return FALSE;
  }
  count_name = head[3];
  count_text = lookup (sc, count_name, strlen (count_name));
  if (!count_text || !parse_u64 (count_text, &n)) {
    gchar *names = known_names (sc->sweep);
    g_set_error (err, GPUPROF_SWEEP_ERROR, 0, "template: {for ... in %s}: "
        "%s is not a variable with a whole number value (variables: %s)",
        count_name, count_name, names);
    g_free (names);
    g_strfreev (head);
    return FALSE;
  }
  for (k = 0; ok && k < n; k++) {
    gchar idx[24];
    Scope inner = *sc;

    g_snprintf (idx, sizeof (idx), "%" G_GUINT64_FORMAT, k);
    inner.loop_name = head[1];
    inner.loop_value = idx;
    ok = expand_into (out, colon + 1, len - (colon + 1 - body), &inner, err);
  }
  g_strfreev (head);
  return ok;
}

static gboolean
expand_into (GString * out, const gchar * text, gsize len, const Scope * sc,
    GError ** err)
{
  const gchar *p = text, *end = text + len;

  while (p < end) {
    const gchar *close;
    gsize n;

    if (*p != '{') {
      g_string_append_c (out, *p++);
      continue;
    }
    close = closing_brace (p);
    if (!close || close >= end) {
      g_string_append_c (out, *p++);
      continue;
    }
    n = close - p - 1;
    if (n > 4 && strncmp (p + 1, "for ", 4) == 0) {
      if (!expand_for (out, p + 1, n, sc, err))
        return FALSE;
    } else if (valid_name (p + 1, n)) {
      const gchar *v = lookup (sc, p + 1, n);
      if (!v) {
        gchar *names = known_names (sc->sweep);
        g_set_error (err, GPUPROF_SWEEP_ERROR, 0, "template: unknown "
            "placeholder {%.*s} (variables: %s; give values with --set "
            "NAME=...)", (gint) n, p + 1, *names ? names : "none");
        g_free (names);
        return FALSE;
      }
      g_string_append (out, v);
    } else {
      /* not ours, e.g. caps lists "{ I420, NV12 }": kept as written */
      g_string_append_len (out, p, n + 2);
    }
    p = close + 1;
  }
  return TRUE;
}

/**
 * gpuprof_sweep_expand:
 * @values: one value per variable of @sweep
 *
 * Replaces {NAME} by the variable's value and repeats "{for i in NAME:
 * TEXT}" NAME times with {i} = 0, 1, ...; other braces stay as written.
 *
 * Returns: (transfer full): the text, or NULL with @err naming the
 * placeholder and the variables there are
 */
gchar *
gpuprof_sweep_expand (const gchar * template, const GpuprofSweep * sweep,
    const gchar * const *values, GError ** err)
{
  GString *out = g_string_new (NULL);
  Scope sc = { sweep, values, NULL, NULL };

  if (!expand_into (out, template, strlen (template), &sc, err)) {
    g_string_free (out, TRUE);
    return NULL;
  }
  return g_string_free (out, FALSE);
}

/* --- figures of one point ------------------------------------------------ */

/**
 * gpuprof_sweep_point_measure:
 * @streams: streams the run had (0: the mux's inputs, else its sources)
 *
 * Frames are what the batching mux took in (the aggregator with the most
 * frames), else what the sinks received; fps is frames over the pipeline's
 * wall time (first to last activity, so start-up is not counted).
 */
void
gpuprof_sweep_point_measure (GpuprofSweepPoint * pt,
    const GpuprofSnapshot * snap, guint64 streams)
{
  const GpuprofBatchRow *mux = NULL;
  guint64 sources = 0, gpu_ns = 0;
  guint i;

  for (i = 0; snap->batches && i < snap->batches->len; i++) {
    const GpuprofBatchRow *b = &g_array_index (snap->batches,
        GpuprofBatchRow, i);
    if (!mux || b->frames > mux->frames)
      mux = b;
  }
  pt->frames = 0;
  for (i = 0; snap->elements && i < snap->elements->len; i++) {
    const GpuprofElementRow *e = &g_array_index (snap->elements,
        GpuprofElementRow, i);
    if (g_strcmp0 (e->role, "sink") == 0 && !mux)
      pt->frames += e->buffers_in;
    if (g_strcmp0 (e->role, "source") == 0)
      sources++;
  }
  if (mux)
    pt->frames = mux->frames;
  if (streams == 0)
    streams = mux && mux->inputs ? mux->inputs : MAX (sources, 1);
  pt->streams = streams;
  pt->wall_ns = snap->wall_ns;
  pt->fps = snap->wall_ns ? pt->frames * 1e9 / snap->wall_ns : 0;
  pt->fps_per_stream = pt->fps / streams;
  pt->latency_p50_ms = mux && mux->latency_p50_ns ?
      mux->latency_p50_ns / 1e6 : -1;
  pt->latency_p99_ms = mux && mux->latency_p99_ns ?
      mux->latency_p99_ns / 1e6 : -1;
  pt->fill = mux && mux->batch_size ? mux->fill : -1;

  g_free (pt->limiting);
  pt->limiting = NULL;
  for (i = 0; snap->stages && i < snap->stages->len; i++) {
    const GpuprofStageRow *st = &g_array_index (snap->stages,
        GpuprofStageRow, i);
    gpu_ns += st->gpu_ns;
    if (st->limiting && !pt->limiting)
      pt->limiting = g_strdup (st->path);
  }
  if (!pt->limiting && snap->bottleneck)
    pt->limiting = g_strdup (snap->bottleneck);
  pt->gpu_ms_per_batch = gpu_ns && mux && mux->batches ?
      gpu_ns / 1e6 / mux->batches : -1;
  pt->gpu_ms_per_frame = gpu_ns && pt->frames ? gpu_ns / 1e6 / pt->frames : -1;

  g_free (pt->limit_kind);
  g_free (pt->limit_what);
  g_free (pt->next_what);
  pt->limit_kind = g_strdup (snap->limit_kind);
  pt->limit_what = g_strdup (snap->limit_what);
  pt->limit_utilisation = snap->limit_utilisation;
  pt->limit_headroom = snap->limit_headroom;
  pt->next_what = g_strdup (snap->next_what);

  g_free (pt->advice);
  pt->advice = NULL;
  if (snap->advice && snap->advice->len) {
    const GpuprofAdviceRow *a = &g_array_index (snap->advice,
        GpuprofAdviceRow, 0);
    pt->advice = g_strdup_printf ("%s: %s", a->stage, a->setting);
  }
}

/* --- search -------------------------------------------------------------- */

typedef struct
{
  GpuprofSweep *s;
  GpuprofSweepMeasureFunc measure;
  gpointer user_data;
  gint searched;                /* variable the mode searches, -1 grid */
  guint *idx;                   /* odometer over the other variables */
} Search;

static GpuprofSweepVar *
var_at (const GpuprofSweep * s, guint i)
{
  return g_ptr_array_index (s->vars, i);
}

/* runs one point with the group's values and @searched_value; NULL when
 * the sweep is to stop */
static GpuprofSweepPoint *
run_point (Search * se, const gchar * searched_value)
{
  GpuprofSweepPoint *pt = g_new0 (GpuprofSweepPoint, 1);
  guint i, n = se->s->vars->len;

  pt->values = g_new0 (gchar *, n + 1);
  for (i = 0; i < n; i++)
    pt->values[i] = g_strdup ((gint) i == se->searched ? searched_value :
        var_at (se->s, i)->values[se->idx[i]]);
  pt->latency_p50_ms = pt->latency_p99_ms = -1;
  pt->gpu_ms_per_batch = pt->gpu_ms_per_frame = pt->fill = -1;
  if (!se->measure (se->s, pt, se->user_data)) {
    point_free (pt);
    se->s->interrupted = TRUE;
    return NULL;
  }
  g_ptr_array_add (se->s->points, pt);
  return pt;
}

static GpuprofSweepResult *
new_result (Search * se)
{
  GpuprofSweepResult *r = g_new0 (GpuprofSweepResult, 1);
  GPtrArray *g = g_ptr_array_new ();
  guint i;

  for (i = 0; i < se->s->vars->len; i++)
    if ((gint) i != se->searched)
      g_ptr_array_add (g, g_strdup_printf ("%s=%s", var_at (se->s, i)->name,
              var_at (se->s, i)->values[se->idx[i]]));
  g_ptr_array_add (g, NULL);
  r->group = (GStrv) g_ptr_array_free (g, FALSE);
  g_ptr_array_add (se->s->results, r);
  return r;
}

/* "clock pipeline0/sink 1.6x": what limits a run, its headroom */
static gchar *
limit_cell (const GpuprofSweepPoint * pt)
{
  if (!pt->limit_kind)
    return g_strdup ("-");
  return g_strdup_printf ("%s %s %.2fx", pt->limit_kind,
      pt->limit_what ? pt->limit_what : "?", pt->limit_headroom);
}

/* plateau: the batch after which the next value gives less than
 * threshold more fps (NVIDIA's "plateau batch") */
static gboolean
search_plateau (Search * se)
{
  GStrv values = var_at (se->s, se->searched)->values;
  GpuprofSweepResult *r = new_result (se);
  GpuprofSweepPoint *prev = NULL;
  guint i;

  for (i = 0; values[i]; i++) {
    GpuprofSweepPoint *pt = run_point (se, values[i]);

    if (!pt) {
      r->note = g_strdup ("interrupted");
      return FALSE;
    }
    if (!pt->done) {
      r->note = g_strdup_printf ("run failed at %s=%s", se->s->batch_var,
          values[i]);
      return TRUE;
    }
    if (prev && pt->fps < prev->fps * (1 + se->s->threshold)) {
      gchar *why = limit_cell (pt);

      r->answer = g_strdup (values[i - 1]);
      r->note = g_strdup_printf ("%s=%s gave %+.1f%% fps; limit there: %s",
          se->s->batch_var, values[i], prev->fps > 0 ?
          (pt->fps / prev->fps - 1) * 100 : 0, why);
      g_free (why);
      return TRUE;
    }
    prev = pt;
  }
  if (prev) {
    r->answer = g_strdup (values[i - 1]);
    r->note = g_strdup_printf ("no plateau up to %s=%s: fps still grew by "
        "%.0f%% or more", se->s->batch_var, values[i - 1],
        se->s->threshold * 100);
  }
  return TRUE;
}

/* 0 holds, 1 does not, -1 stop */
static gint
streams_hold (Search * se, guint64 n)
{
  gchar v[24];
  GpuprofSweepPoint *pt;

  g_snprintf (v, sizeof (v), "%" G_GUINT64_FORMAT, n);
  pt = run_point (se, v);
  if (!pt)
    return -1;
  return pt->done && pt->fps_per_stream >= se->s->fps_floor ? 0 : 1;
}

/* max streams: double from 1 while each stream keeps the floor, then
 * bisect between the last that held and the first that did not (Intel's
 * density method) */
static gboolean
search_max_streams (Search * se)
{
  GpuprofSweepResult *r = new_result (se);
  guint64 good = 0, bad = 0, n = 1, max = MAX (se->s->max_streams, 1);
  gint h;

  while (TRUE) {
    h = streams_hold (se, n);
    if (h < 0)
      goto interrupted;
    if (h == 1) {
      bad = n;
      break;
    }
    good = n;
    if (n == max)
      break;
    n = MIN (n * 2, max);
  }
  while (bad && bad - good > 1) {
    guint64 mid = good + (bad - good) / 2;
    h = streams_hold (se, mid);
    if (h < 0)
      goto interrupted;
    if (h == 0)
      good = mid;
    else
      bad = mid;
  }
  r->answer = g_strdup_printf ("%" G_GUINT64_FORMAT, good);
  if (!bad)
    r->note = g_strdup_printf ("held up to --max-streams %" G_GUINT64_FORMAT,
        max);
  else
    r->note = g_strdup_printf ("%" G_GUINT64_FORMAT " streams fell below "
        "%.2f fps per stream", bad, se->s->fps_floor);
  return TRUE;

interrupted:
  r->note = g_strdup ("interrupted");
  if (good)
    r->answer = g_strdup_printf ("%" G_GUINT64_FORMAT, good);
  return FALSE;
}

static gboolean
odometer_next (Search * se)
{
  gint i;

  for (i = se->s->vars->len - 1; i >= 0; i--) {
    if (i == se->searched)
      continue;
    if (var_at (se->s, i)->values[++se->idx[i]])
      return TRUE;
    se->idx[i] = 0;
  }
  return FALSE;
}

/**
 * gpuprof_sweep_estimate_points:
 *
 * Returns: how many points the sweep runs at most (for progress and ETA)
 */
guint
gpuprof_sweep_estimate_points (const GpuprofSweep * s)
{
  guint i, groups = 1, per_group = 1, steps = 0;
  gint searched = s->mode == GPUPROF_SWEEP_PLATEAU ?
      gpuprof_sweep_var_index (s, s->batch_var) :
      s->mode == GPUPROF_SWEEP_MAX_STREAMS ?
      gpuprof_sweep_var_index (s, s->streams_var) : -1;
  guint64 n;

  for (i = 0; i < s->vars->len; i++) {
    if ((gint) i == searched)
      per_group = g_strv_length (var_at (s, i)->values);
    else
      groups *= g_strv_length (var_at (s, i)->values);
  }
  if (s->mode == GPUPROF_SWEEP_MAX_STREAMS) {
    for (n = 1; n < s->max_streams; n *= 2)
      steps++;
    per_group = 2 * steps + 1;
  }
  return groups * per_group;
}

/**
 * gpuprof_sweep_run:
 * @measure: runs one point
 *
 * Runs the points the mode asks for, in order, and fills the results.
 * Stops early (sweep->interrupted) when @measure returns FALSE.
 */
void
gpuprof_sweep_run (GpuprofSweep * s, GpuprofSweepMeasureFunc measure,
    gpointer user_data)
{
  Search se = { s, measure, user_data, -1, NULL };
  gboolean go = TRUE;

  if (s->mode == GPUPROF_SWEEP_PLATEAU)
    se.searched = gpuprof_sweep_var_index (s, s->batch_var);
  else if (s->mode == GPUPROF_SWEEP_MAX_STREAMS)
    se.searched = gpuprof_sweep_var_index (s, s->streams_var);
  se.idx = g_new0 (guint, s->vars->len);
  do {
    if (s->mode == GPUPROF_SWEEP_GRID)
      go = run_point (&se, NULL) != NULL;
    else if (s->mode == GPUPROF_SWEEP_PLATEAU)
      go = search_plateau (&se);
    else
      go = search_max_streams (&se);
  } while (go && odometer_next (&se));
  g_free (se.idx);
}

/* --- outputs ------------------------------------------------------------- */

static void
append_num (GString * out, gint width, gint prec, gdouble v)
{
  if (v < 0)
    g_string_append_printf (out, " %*s", width, "-");
  else
    g_string_append_printf (out, " %*.*f", width, prec, v);
}

/**
 * gpuprof_sweep_format_table:
 *
 * Returns: (transfer full): one line per point, then the mode's answers
 */
gchar *
gpuprof_sweep_format_table (const GpuprofSweep * s)
{
  GString *out = g_string_new (NULL);
  gchar *cell;
  guint i, j;

  for (j = 0; j < s->vars->len; j++)
    g_string_append_printf (out, "%-8s ", var_at (s, j)->name);
  g_string_append (out, "     fps  fps/str  lat50 ms  lat99 ms  GPU ms/b  "
      "GPU ms/fr  fill %  limit (headroom) / advice\n");
  for (i = 0; i < s->points->len; i++) {
    const GpuprofSweepPoint *pt = g_ptr_array_index (s->points, i);

    for (j = 0; j < s->vars->len; j++)
      g_string_append_printf (out, "%-8s ", pt->values[j]);
    if (!pt->done) {
      g_string_append_printf (out, "   failed: %s\n", pt->error ? pt->error :
          "no figures");
      continue;
    }
    append_num (out, 7, 1, pt->fps);
    append_num (out, 8, 2, pt->fps_per_stream);
    append_num (out, 9, 2, pt->latency_p50_ms);
    append_num (out, 9, 2, pt->latency_p99_ms);
    append_num (out, 9, 3, pt->gpu_ms_per_batch);
    append_num (out, 10, 4, pt->gpu_ms_per_frame);
    append_num (out, 7, 0, pt->fill < 0 ? -1 : pt->fill * 100);
    cell = limit_cell (pt);
    g_string_append_printf (out, "  %s%s%s\n", cell,
        pt->advice ? " / " : "", pt->advice ? pt->advice : "");
    g_free (cell);
  }
  if (s->results->len)
    g_string_append_printf (out, "\n%s\n", s->mode == GPUPROF_SWEEP_PLATEAU ?
        "plateau batch (the next value gives less than the threshold more "
        "fps):" : "max streams (each keeping the fps floor):");
  for (i = 0; i < s->results->len; i++) {
    const GpuprofSweepResult *r = g_ptr_array_index (s->results, i);
    gchar *group = g_strjoinv (" ", r->group);

    g_string_append_printf (out, "  %s%s%s=%s  (%s)\n", group,
        *group ? ": " : "", s->mode == GPUPROF_SWEEP_PLATEAU ? s->batch_var :
        s->streams_var, r->answer ? r->answer : "none",
        r->note ? r->note : "");
    g_free (group);
  }
  if (s->interrupted)
    g_string_append (out, "\n(interrupted: the points above finished)\n");
  return g_string_free (out, FALSE);
}

static void
csv_num (GString * out, gdouble v)
{
  g_string_append_c (out, ',');
  if (v >= 0) {
    gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_string_append (out, g_ascii_formatd (buf, sizeof (buf), "%.6g", v));
  }
}

/**
 * gpuprof_sweep_to_csv:
 *
 * Returns: (transfer full): one row per point (RFC 4180); empty cells for
 * figures a run does not have
 */
gchar *
gpuprof_sweep_to_csv (const GpuprofSweep * s)
{
  GString *out = g_string_new (NULL);
  guint i, j;

  for (j = 0; j < s->vars->len; j++)
    g_string_append_printf (out, "%s,", var_at (s, j)->name);
  g_string_append (out, "status,fps,fps_per_stream,latency_p50_ms,"
      "latency_p99_ms,gpu_ms_per_batch,gpu_ms_per_frame,fill,limiting,advice,"
      "seconds,summary,error,limit_kind,limit_what,limit_utilisation,"
      "limit_headroom,next_what\r\n");
  for (i = 0; i < s->points->len; i++) {
    const GpuprofSweepPoint *pt = g_ptr_array_index (s->points, i);

    for (j = 0; j < s->vars->len; j++) {
      gpuprof_summary_append_csv (out, pt->values[j]);
      g_string_append_c (out, ',');
    }
    g_string_append (out, pt->done ? "ok" : "failed");
    csv_num (out, pt->done ? pt->fps : -1);
    csv_num (out, pt->done ? pt->fps_per_stream : -1);
    csv_num (out, pt->latency_p50_ms);
    csv_num (out, pt->latency_p99_ms);
    csv_num (out, pt->gpu_ms_per_batch);
    csv_num (out, pt->gpu_ms_per_frame);
    csv_num (out, pt->fill);
    g_string_append_c (out, ',');
    gpuprof_summary_append_csv (out, pt->limiting);
    g_string_append_c (out, ',');
    gpuprof_summary_append_csv (out, pt->advice);
    csv_num (out, pt->seconds);
    g_string_append_c (out, ',');
    gpuprof_summary_append_csv (out, pt->summary);
    g_string_append_c (out, ',');
    gpuprof_summary_append_csv (out, pt->error);
    g_string_append_c (out, ',');
    gpuprof_summary_append_csv (out, pt->limit_kind);
    g_string_append_c (out, ',');
    gpuprof_summary_append_csv (out, pt->limit_what);
    csv_num (out, pt->limit_kind ? pt->limit_utilisation : -1);
    csv_num (out, pt->limit_kind ? pt->limit_headroom : -1);
    g_string_append_c (out, ',');
    gpuprof_summary_append_csv (out, pt->next_what);
    g_string_append (out, "\r\n");
  }
  return g_string_free (out, FALSE);
}

static void
json_num (JsonBuilder * b, const gchar * key, gdouble v)
{
  json_builder_set_member_name (b, key);
  if (v < 0)
    json_builder_add_null_value (b);
  else
    json_builder_add_double_value (b, v);
}

static void
json_str (JsonBuilder * b, const gchar * key, const gchar * v)
{
  json_builder_set_member_name (b, key);
  if (v)
    json_builder_add_string_value (b, v);
  else
    json_builder_add_null_value (b);
}

static const gchar *
mode_name (GpuprofSweepMode m)
{
  return m == GPUPROF_SWEEP_GRID ? "grid" : m == GPUPROF_SWEEP_PLATEAU ?
      "plateau" : "max-streams";
}

/**
 * gpuprof_sweep_to_json:
 *
 * Returns: (transfer full): the sweep as documented in docs/sweep.md
 */
gchar *
gpuprof_sweep_to_json (const GpuprofSweep * s)
{
  JsonBuilder *b = json_builder_new ();
  JsonGenerator *gen;
  JsonNode *root;
  gchar *text;
  guint i, j;

  json_builder_begin_object (b);
  json_str (b, "schema", GPUPROF_SWEEP_SCHEMA);
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, GPUPROF_SWEEP_VERSION);
  json_str (b, "mode", mode_name (s->mode));
  json_str (b, "template", s->template);
  json_builder_set_member_name (b, "command");
  json_builder_add_boolean_value (b, s->command);
  json_str (b, "batch_var", s->batch_var);
  json_str (b, "streams_var", s->streams_var);
  json_num (b, "threshold", s->threshold);
  json_num (b, "fps_floor", s->mode == GPUPROF_SWEEP_MAX_STREAMS ?
      s->fps_floor : -1);
  json_builder_set_member_name (b, "interrupted");
  json_builder_add_boolean_value (b, s->interrupted);
  json_builder_set_member_name (b, "variables");
  json_builder_begin_object (b);
  for (j = 0; j < s->vars->len; j++) {
    json_builder_set_member_name (b, var_at (s, j)->name);
    json_builder_begin_array (b);
    for (i = 0; var_at (s, j)->values[i]; i++)
      json_builder_add_string_value (b, var_at (s, j)->values[i]);
    json_builder_end_array (b);
  }
  json_builder_end_object (b);

  json_builder_set_member_name (b, "points");
  json_builder_begin_array (b);
  for (i = 0; i < s->points->len; i++) {
    const GpuprofSweepPoint *pt = g_ptr_array_index (s->points, i);

    json_builder_begin_object (b);
    json_builder_set_member_name (b, "values");
    json_builder_begin_object (b);
    for (j = 0; j < s->vars->len; j++)
      json_str (b, var_at (s, j)->name, pt->values[j]);
    json_builder_end_object (b);
    json_str (b, "status", pt->done ? "ok" : "failed");
    json_str (b, "error", pt->error);
    json_num (b, "seconds", pt->seconds);
    json_str (b, "summary", pt->summary);
    if (pt->done) {
      json_builder_set_member_name (b, "streams");
      json_builder_add_int_value (b, pt->streams);
      json_builder_set_member_name (b, "frames");
      json_builder_add_int_value (b, pt->frames);
      json_builder_set_member_name (b, "wall_ns");
      json_builder_add_int_value (b, pt->wall_ns);
      json_num (b, "fps", pt->fps);
      json_num (b, "fps_per_stream", pt->fps_per_stream);
      json_num (b, "latency_p50_ms", pt->latency_p50_ms);
      json_num (b, "latency_p99_ms", pt->latency_p99_ms);
      json_num (b, "gpu_ms_per_batch", pt->gpu_ms_per_batch);
      json_num (b, "gpu_ms_per_frame", pt->gpu_ms_per_frame);
      json_num (b, "fill", pt->fill);
      json_str (b, "limiting", pt->limiting);
      json_str (b, "advice", pt->advice);
      json_str (b, "limit_kind", pt->limit_kind);
      json_str (b, "limit_what", pt->limit_what);
      json_num (b, "limit_utilisation", pt->limit_kind ?
          pt->limit_utilisation : -1);
      json_num (b, "limit_headroom", pt->limit_kind ? pt->limit_headroom :
          -1);
      json_str (b, "next_what", pt->next_what);
    }
    json_builder_end_object (b);
  }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "results");
  json_builder_begin_array (b);
  for (i = 0; i < s->results->len; i++) {
    const GpuprofSweepResult *r = g_ptr_array_index (s->results, i);

    json_builder_begin_object (b);
    json_builder_set_member_name (b, "group");
    json_builder_begin_object (b);
    for (j = 0; r->group[j]; j++) {
      gchar **kv = g_strsplit (r->group[j], "=", 2);
      json_str (b, kv[0], kv[1]);
      g_strfreev (kv);
    }
    json_builder_end_object (b);
    json_str (b, s->mode == GPUPROF_SWEEP_PLATEAU ? "plateau" : "max_streams",
        r->answer);
    json_str (b, "note", r->note);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  gen = json_generator_new ();
  json_generator_set_pretty (gen, TRUE);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);
  json_node_unref (root);
  g_object_unref (gen);
  g_object_unref (b);
  return text;
}
