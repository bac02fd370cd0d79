/* gpuprof: the table of outputs and what the session calls on all of them
 * (see gpuprof-output.h, docs/outputs.md). */
#include "gpuprof-output.h"
#include "gpuprof-outfile.h"

#include <gst/gst.h>

/* one line per output, defined in gpuprof-output-<name>.c */
extern const GpuprofOutputClass gpuprof_output_records;
extern const GpuprofOutputClass gpuprof_output_summary;
extern const GpuprofOutputClass gpuprof_output_trace;
extern const GpuprofOutputClass gpuprof_output_html;
extern const GpuprofOutputClass gpuprof_output_report;

/* Run-end order: the machine-readable outputs first, then the report, so a
 * report file that appears means the summary and trace are complete. */
static const GpuprofOutputClass *const outputs[] = {
  &gpuprof_output_records,
  &gpuprof_output_summary,
  &gpuprof_output_trace,
  &gpuprof_output_html,
  &gpuprof_output_report,
};

const GpuprofOutputClass *const *
gpuprof_output_classes (guint * n)
{
  *n = G_N_ELEMENTS (outputs);
  return outputs;
}

const GpuprofOutputClass *
gpuprof_output_class_find (const gchar * name)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (outputs); i++)
    if (!g_strcmp0 (outputs[i]->name, name))
      return outputs[i];
  return NULL;
}

static void
output_free (gpointer data)
{
  GpuprofOutput *o = data;

  if (o->sink)
    gpuprof_bus_remove_sink (o->bus, o->sink);
  if (o->klass->free)
    o->klass->free (o->state);
  g_free (o);
}

/* on the bus's drain thread: the output is not freed while it runs */
static void
output_events (const GpuprofEvent * events, guint n, gpointer data)
{
  GpuprofOutput *o = data;

  o->klass->events (o->state, events, n);
}

/**
 * gpuprof_outputs_open:
 * @params: the session's parameters
 * @ctx: what the outputs may use
 *
 * Opens every output @params enable. One that cannot open has said why and
 * is left out.
 *
 * Returns: (transfer full): the open outputs, in table order
 */
GPtrArray *
gpuprof_outputs_open (const GpuprofParams * params,
    const GpuprofOutputContext * ctx)
{
  GPtrArray *open = g_ptr_array_new_with_free_func (output_free);
  guint i;

  /* %t in the paths: the session's start */
  gpuprof_outfile_mark_start ();
  for (i = 0; i < G_N_ELEMENTS (outputs); i++) {
    const GpuprofOutputClass *klass = outputs[i];
    gpointer state;

    if (!klass->enabled (params))
      continue;
    state = klass->open (params, ctx);
    if (state) {
      static const GpuprofBusSink sink = { NULL, output_events, NULL };
      GpuprofOutput *o = g_new0 (GpuprofOutput, 1);
      o->klass = klass;
      o->state = state;
      if (klass->events && ctx->bus) {
        o->bus = ctx->bus;
        o->sink = gpuprof_bus_add_sink (ctx->bus, &sink, o);
      }
      g_ptr_array_add (open, o);
      GST_INFO ("gpuprof output %s open", klass->name);
    }
  }
  return open;
}

GpuprofOutput *
gpuprof_outputs_find (GPtrArray * outputs, const gchar * name)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    if (!g_strcmp0 (o->klass->name, name))
      return o;
  }
  return NULL;
}

/* each output's line for the end of the report */
void
gpuprof_outputs_describe (GPtrArray * outputs, GString * report)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    gchar *line = o->klass->describe ? o->klass->describe (o->state) : NULL;

    if (line)
      g_string_append_printf (report, "%s\n", line);
    g_free (line);
  }
}

void
gpuprof_outputs_run_end (GPtrArray * outputs, const GpuprofRunEnd * end)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    if (o->klass->run_end)
      o->klass->run_end (o->state, end);
  }
}

void
gpuprof_outputs_interval (GPtrArray * outputs, const GpuprofInterval * iv)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    if (o->klass->interval)
      o->klass->interval (o->state, iv);
  }
}

gboolean
gpuprof_outputs_want_checkpoints (GPtrArray * outputs)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    if (o->klass->checkpoint)
      return TRUE;
  }
  return FALSE;
}

void
gpuprof_outputs_checkpoint (GPtrArray * outputs,
    const GpuprofSnapshot * snapshot)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    if (o->klass->checkpoint)
      o->klass->checkpoint (o->state, snapshot);
  }
}

void
gpuprof_outputs_close (GPtrArray * outputs)
{
  guint i;

  for (i = 0; i < outputs->len; i++) {
    GpuprofOutput *o = g_ptr_array_index (outputs, i);
    if (o->klass->close)
      o->klass->close (o->state);
  }
}

void
gpuprof_outputs_free (GPtrArray * outputs)
{
  if (outputs)
    g_ptr_array_unref (outputs);
}
