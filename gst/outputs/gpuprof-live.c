/* gpuprof: the text of live snapshots (see gpuprof-live.h, docs/live.md).
 * Interval figures are differences between two cumulative snapshots of one
 * run, so the last cumulative object is the end-of-run summary itself. */
#include "gpuprof-live.h"

#include <string.h>

#include "gpuprof-json.h"
#include "gpuprof-summary.h"

/* what an element counts as its throughput: a sink what it received */
static guint64
element_frames (const GpuprofElementRow * row)
{
  return !g_strcmp0 (row->role, "sink") ? row->buffers_in : row->buffers_out;
}

static const GpuprofElementRow *
previous_row (const GpuprofInterval * iv, const GpuprofElementRow * row)
{
  return iv->previous ?
      gpuprof_snapshot_find_element (iv->previous, row->path) : NULL;
}

/* counters never go back within a run; a row new to this interval counts
 * from zero */
static guint64
delta (guint64 now, guint64 before)
{
  return now > before ? now - before : 0;
}

static gdouble
rate (guint64 n, gdouble seconds)
{
  return seconds > 0.0 ? n / seconds : 0.0;
}

gchar *
gpuprof_live_json_line (const GpuprofInterval * iv)
{
  const GpuprofSnapshot *snap = iv->snapshot;
  GString *s = g_string_new ("{\"seq\": ");
  gchar *summary, *c;
  guint i;

  g_string_append_printf (s, "%" G_GUINT64_FORMAT ", \"t_s\": ", iv->seq);
  gpuprof_json_append_double (s, iv->t_s);
  g_string_append (s, ", \"interval_s\": ");
  gpuprof_json_append_double (s, iv->interval_s);
  g_string_append_printf (s, ", \"final\": %s, \"pipeline\": ",
      iv->final ? "true" : "false");
  gpuprof_json_append_string (s, snap->pipeline);
  g_string_append (s, ", \"interval\": {\"elements\": [");
  for (i = 0; i < snap->elements->len; i++) {
    const GpuprofElementRow *row =
        &g_array_index (snap->elements, GpuprofElementRow, i);
    const GpuprofElementRow *prev = previous_row (iv, row);
    guint64 frames = delta (element_frames (row),
        prev ? element_frames (prev) : 0);

    g_string_append (s, i ? ", {\"path\": " : "{\"path\": ");
    gpuprof_json_append_string (s, row->path);
    g_string_append_printf (s, ", \"buffers\": %" G_GUINT64_FORMAT
        ", \"self_ns\": %" G_GUINT64_FORMAT ", \"blocked_ns\": %"
        G_GUINT64_FORMAT ", \"fps\": ", frames,
        delta (row->self_ns, prev ? prev->self_ns : 0),
        delta (row->blocked_ns, prev ? prev->blocked_ns : 0));
    gpuprof_json_append_double (s, rate (frames, iv->interval_s));
    g_string_append (s, "}");
  }
  /* cumulative: the summary as stats= writes it, on one line (the JSON
   * has newlines only between tokens) */
  g_string_append (s, "]}, \"cumulative\": ");
  summary = gpuprof_summary_to_json (snap);
  for (c = summary; *c; c++)
    if (*c != '\n')
      g_string_append_c (s, *c);
  g_free (summary);
  g_string_append (s, "}\n");
  return g_string_free (s, FALSE);
}

const gchar *
gpuprof_live_csv_header (void)
{
  return "seq,t_s,interval_s,final,pipeline,path,role,buffers_in,"
      "buffers_out,self_ns,blocked_ns,interval_buffers,interval_self_ns,"
      "interval_fps\n";
}

void
gpuprof_live_append_csv (GString * s, const GpuprofInterval * iv)
{
  const GpuprofSnapshot *snap = iv->snapshot;
  guint i;

  for (i = 0; i < snap->elements->len; i++) {
    const GpuprofElementRow *row =
        &g_array_index (snap->elements, GpuprofElementRow, i);
    const GpuprofElementRow *prev = previous_row (iv, row);
    guint64 frames = delta (element_frames (row),
        prev ? element_frames (prev) : 0);

    g_string_append_printf (s, "%" G_GUINT64_FORMAT ",", iv->seq);
    gpuprof_json_append_double (s, iv->t_s);
    g_string_append_c (s, ',');
    gpuprof_json_append_double (s, iv->interval_s);
    g_string_append_printf (s, ",%d,", iv->final ? 1 : 0);
    gpuprof_summary_append_csv (s, snap->pipeline);
    g_string_append_c (s, ',');
    gpuprof_summary_append_csv (s, row->path);
    g_string_append_c (s, ',');
    gpuprof_summary_append_csv (s, row->role);
    g_string_append_printf (s, ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
        ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
        ",%" G_GUINT64_FORMAT ",", row->buffers_in, row->buffers_out,
        row->self_ns, row->blocked_ns, frames,
        delta (row->self_ns, prev ? prev->self_ns : 0));
    gpuprof_json_append_double (s, rate (frames, iv->interval_s));
    g_string_append_c (s, '\n');
  }
}

gchar *
gpuprof_live_path (const gchar * json_path, const gchar * ext)
{
  gsize len = strlen (json_path);

  if (g_str_has_suffix (json_path, ".json"))
    len -= strlen (".json");
  return g_strdup_printf ("%.*s-live.%s", (gint) len, json_path, ext);
}

/* "gpuprof live 12.5 s pipeline0: sink 30.0 fps (1500 buffers); busiest
 * infer 4.1 ms self in 0.5 s" */
gchar *
gpuprof_live_report (const GpuprofInterval * iv)
{
  const GpuprofSnapshot *snap = iv->snapshot;
  const GpuprofElementRow *busiest = NULL;
  guint64 busiest_ns = 0;
  GString *s = g_string_new (NULL);
  guint i;

  g_string_append_printf (s, "gpuprof live %.1f s %s%s:", iv->t_s,
      snap->pipeline ? snap->pipeline : "?", iv->final ? " (end)" : "");
  for (i = 0; i < snap->elements->len; i++) {
    const GpuprofElementRow *row =
        &g_array_index (snap->elements, GpuprofElementRow, i);
    const GpuprofElementRow *prev = previous_row (iv, row);
    guint64 self = delta (row->self_ns, prev ? prev->self_ns : 0);

    if (self > busiest_ns) {
      busiest_ns = self;
      busiest = row;
    }
    if (!g_strcmp0 (row->role, "sink")) {
      guint64 frames = delta (row->buffers_in, prev ? prev->buffers_in : 0);
      g_string_append_printf (s, " %s %.1f fps (%" G_GUINT64_FORMAT
          " buffers);", row->path, rate (frames, iv->interval_s),
          row->buffers_in);
    }
  }
  if (busiest)
    g_string_append_printf (s, " busiest %s %.1f ms self in %.2f s",
        busiest->path, busiest_ns / 1e6, iv->interval_s);
  g_string_append_c (s, '\n');
  return g_string_free (s, FALSE);
}
