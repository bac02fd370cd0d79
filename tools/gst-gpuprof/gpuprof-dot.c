/* gst-gpuprof dot: the pipeline graph of a snapshot, heat-mapped.
 * Nodes are the elements (links table endpoints and elements rows); the
 * fill follows the share of the element's thread's time in its work (its
 * self time: on a CPU, waiting for a core or blocked; busy is the on-CPU
 * part), or for a queue the share of its upstream thread's time spent
 * blocked on it (full). */
#include "gpuprof-dot.h"

#include <math.h>

void
gpuprof_dot_heat_color (gdouble f, gchar out[8])
{
  gdouble r, g, b;

  f = isnan (f) ? 0 : CLAMP (f, 0.0, 1.0);
  /* pale green -> yellow at 0.5 -> red at 1: monotonic in red - green */
  if (f < 0.5) {
    r = 0.80 + 0.40 * f;
    g = 0.95;
    b = 0.80 - 1.40 * f;
  } else {
    r = 1.0;
    g = 0.95 - 1.50 * (f - 0.5);
    b = 0.10;
  }
  g_snprintf (out, 8, "#%02x%02x%02x", (guint) (CLAMP (r, 0, 1) * 255),
      (guint) (CLAMP (g, 0, 1) * 255), (guint) (CLAMP (b, 0, 1) * 255));
}

static void
append_quoted (GString * out, const gchar * s)
{
  g_string_append_c (out, '"');
  for (; s && *s; s++) {
    if (*s == '"' || *s == '\\')
      g_string_append_c (out, '\\');
    if (*s == '\n')
      g_string_append (out, "\\n");
    else
      g_string_append_c (out, *s);
  }
  g_string_append_c (out, '"');
}

static const gchar *
base_name (const gchar * path)
{
  const gchar *slash = path ? strrchr (path, '/') : NULL;

  return slash ? slash + 1 : (path ? path : "");
}

/* every element that appears: the elements rows, then link endpoints */
static GPtrArray *
node_paths (const GpuprofSnapshot * s)
{
  GPtrArray *paths = g_ptr_array_new ();
  GHashTable *seen = g_hash_table_new (g_str_hash, g_str_equal);
  guint i;

#define ADD(p) G_STMT_START { \
    if ((p) && !g_hash_table_contains (seen, (p))) { \
      g_hash_table_add (seen, (gpointer) (p)); \
      g_ptr_array_add (paths, (gpointer) (p)); } } G_STMT_END
  for (i = 0; i < s->elements->len; i++)
    ADD (g_array_index (s->elements, GpuprofElementRow, i).path);
  for (i = 0; i < s->links->len; i++) {
    const GpuprofLinkRow *l = &g_array_index (s->links, GpuprofLinkRow, i);
    ADD (l->src);
    ADD (l->sink);
  }
#undef ADD
  g_hash_table_unref (seen);
  return paths;
}

gchar *
gpuprof_dot_format (const GpuprofSnapshot * s)
{
  GString *out = g_string_new ("digraph gpuprof {\n");
  GPtrArray *paths = node_paths (s);
  gdouble wall_s = s->wall_ns / 1e9;
  gchar color[8];
  guint i;

  g_string_append (out, "  rankdir=LR;\n  label=");
  {
    gchar *title = g_strdup_printf ("%s: elements filled by %% of their "
        "thread's time in their work, queues by %% of time full; edges: "
        "buffers (fps)",
        s->pipeline ? s->pipeline : "");
    append_quoted (out, title);
    g_free (title);
  }
  g_string_append (out, ";\n  labelloc=t;\n"
      "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
      "fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n");
  for (i = 0; i < paths->len; i++) {
    const gchar *path = g_ptr_array_index (paths, i);
    const GpuprofElementRow *e = gpuprof_snapshot_find_element (s, path);
    const GpuprofQueueRow *q = gpuprof_snapshot_find_queue (s, path);
    GString *label = g_string_new (base_name (path));
    gdouble heat = 0;

    if (e)
      g_string_append_printf (label, "\n%s", e->factory ? e->factory : "");
    if (q) {
      heat = q->upstream_wall_ns ?
          (gdouble) q->backpressure_ns / q->upstream_wall_ns : 0;
      g_string_append_printf (label, "\nfull %.0f%%, max %" G_GUINT64_FORMAT
          " buf", heat * 100, q->max_level_buffers);
    } else if (e) {
      /* the verdict's occupancy: start-up apart, so is the time per call */
      heat = gpuprof_element_row_occupancy (e);
      g_string_append_printf (label, "\nwork %.0f%%, cpu %.0f%%", heat * 100,
          e->busy * 100);
      if (e->calls > e->first_calls)
        g_string_append_printf (label, ", %.3f ms/call",
            (e->self_ns - MIN (e->first_ns, e->self_ns)) / 1e6 /
            (e->calls - e->first_calls));
    } else {
      g_string_append (label, "\n(no activity)");
    }
    gpuprof_dot_heat_color (heat, color);
    g_string_append (out, "  ");
    append_quoted (out, path);
    g_string_append (out, " [label=");
    append_quoted (out, label->str);
    g_string_append_printf (out, ", fillcolor=\"%s\"%s%s];\n",
        e || q ? color : "#eeeeee", q ? ", shape=cds" : "",
        !g_strcmp0 (path, s->bottleneck) ? ", penwidth=3" : "");
    g_string_free (label, TRUE);
  }
  for (i = 0; i < s->links->len; i++) {
    const GpuprofLinkRow *l = &g_array_index (s->links, GpuprofLinkRow, i);
    gchar *label = wall_s > 0 ?
        g_strdup_printf ("%" G_GUINT64_FORMAT " buf (%.1f/s)", l->buffers,
        l->buffers / wall_s) :
        g_strdup_printf ("%" G_GUINT64_FORMAT " buf", l->buffers);

    g_string_append (out, "  ");
    append_quoted (out, l->src);
    g_string_append (out, " -> ");
    append_quoted (out, l->sink);
    g_string_append (out, " [label=");
    append_quoted (out, label);
    g_string_append (out, ", taillabel=");
    append_quoted (out, l->src_pad);
    g_string_append (out, ", headlabel=");
    append_quoted (out, l->sink_pad);
    g_string_append (out, "];\n");
    g_free (label);
  }
  /* legend: the colour scale in steps of 25 % */
  g_string_append (out, "  subgraph cluster_legend {\n"
      "    label=\"work / full\";\n    fontsize=9;\n");
  for (i = 0; i <= 4; i++) {
    gpuprof_dot_heat_color (i / 4.0, color);
    g_string_append_printf (out, "    \"legend %u\" [label=\"%u%%\", "
        "fillcolor=\"%s\", shape=box];\n", i, i * 25, color);
  }
  g_string_append (out, "    \"legend 0\" -> \"legend 1\" -> \"legend 2\" -> "
      "\"legend 3\" -> \"legend 4\" [style=invis];\n  }\n}\n");
  g_ptr_array_unref (paths);
  return g_string_free (out, FALSE);
}
