/* gpuprof: outputs — what the session does with a run.
 *
 * Every way a run leaves the process (the console report, the summary
 * files, the GstTracerRecord lines, the Chrome trace, the HTML page, live
 * snapshots) implements GpuprofOutputClass, in one file of its own, and is listed
 * once in the table of gpuprof-output.c. The session opens the outputs the
 * parameters enable, calls them at every run end and closes them at the end
 * of the process. See docs/outputs.md.
 *
 * Threads: open, describe, run_end, close and free run on the session's
 * threads (the tracer's, an application thread at NULL, atexit), never on a
 * streaming thread, serialised by the session's report lock (open and free
 * by creation and destruction). events runs on the bus's drain thread.
 */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>

#include "gpuprof-event.h"
#include "gpuprof-params.h"
#include "gpuprof-snapshot.h"
#include "gpuprof-trace.h"

G_BEGIN_DECLS

/**
 * GpuprofOutputContext:
 * @names: how ids become names (element paths, pads, threads); copy the
 *   struct to keep it: the callbacks stay valid until the outputs are freed
 * @bus: the events' bus (gpuprof-bus.h): an output with an @events
 *   function is subscribed to it; it outlives the outputs
 *
 * What the session gives an output when it opens.
 */
typedef struct
{
  const GpuprofTraceNames *names;
  GpuprofBus *bus;
} GpuprofOutputContext;

/**
 * GpuprofRunEnd:
 * @snapshot: the finished run
 * @report: the console report of the run as the session formatted it,
 *   live notes included (also what the "get-last-report" signal returns)
 *
 * What an output gets at the end of each pipeline run.
 */
typedef struct
{
  const GpuprofSnapshot *snapshot;
  const gchar *report;
} GpuprofRunEnd;

/**
 * GpuprofInterval:
 * @snapshot: the pipeline's run so far (cumulative)
 * @previous: (nullable): the previous interval's snapshot of the same run,
 *   %NULL for the first; the interval's figures are the differences
 * @seq: 1, 2, ... over the session
 * @t_s: seconds since the tracer started
 * @interval_s: seconds since the previous snapshot (or the run's start)
 * @final: the run ended: @snapshot is the one run_end got
 * @elements: the interval's figures per element (GpuprofIntervalElementRow,
 *   the live table of gpuprof-schema.h), row for row with @snapshot's
 * @queues: per queue (GpuprofIntervalQueueRow), likewise
 * @streams: per source (GpuprofIntervalStreamRow), likewise
 * @verdict: the interval's own figures as a snapshot, with what limited
 *   the run in the interval (gpuprof_snapshot_delta())
 * @gpus: per GPU (GpuprofIntervalGpuRow), row for row with @snapshot's
 *   gpu_resources
 *
 * One live snapshot (interval=, docs/live.md).
 */
typedef struct
{
  const GpuprofSnapshot *snapshot;
  const GpuprofSnapshot *previous;
  guint64 seq;
  gdouble t_s;
  gdouble interval_s;
  gboolean final;
  GArray *elements;
  GArray *queues;
  GArray *streams;
  GpuprofSnapshot *verdict;
  GArray *gpus;
} GpuprofInterval;

/**
 * GpuprofOutputClass:
 * @name: short name, for logs and gpuprof_outputs_find()
 * @enabled: whether @params ask for the output
 * @open: creates the output's state from @params. On failure it says why
 *   once (GST_ERROR and one g_printerr line naming the parameter and the
 *   reason) and returns %NULL: the run goes on without that output.
 * @events: (nullable): events drained from the hooks' rings, on the bus's
 *   drain thread (gpuprof-bus.h; with or without trace=). Most outputs
 *   leave it %NULL.
 * @describe: (nullable): one line for the end of the console report (the
 *   trace's file and size), newly allocated, or %NULL
 * @run_end: (nullable): a pipeline's run ended (EOS, NULL, process exit)
 * @close: (nullable): end of the session: flush and close files. Hooks may
 *   still run: what they hand over later is dropped.
 * @free: (nullable): frees the state; no hook runs any more
 * @interval: (nullable): a live snapshot (interval=), on the session's
 *   timer thread or, for the final one, where the run ended; serialised
 *   with run_end by the report lock
 * @checkpoint: (nullable): the run so far of a running pipeline
 *   (snapshot->checkpoint is TRUE), every checkpoint= seconds on the
 *   session's checkpoint thread, serialised with run_end by the report
 *   lock: rewrite what run_end writes, so a killed process leaves it
 */
typedef struct
{
  const gchar *name;
  gboolean (*enabled) (const GpuprofParams * params);
  gpointer (*open) (const GpuprofParams * params,
      const GpuprofOutputContext * ctx);
  void (*events) (gpointer state, const GpuprofEvent * events, guint n);
  gchar *(*describe) (gpointer state);
  void (*run_end) (gpointer state, const GpuprofRunEnd * end);
  void (*close) (gpointer state);
  void (*free) (gpointer state);
  void (*interval) (gpointer state, const GpuprofInterval * iv);
  void (*checkpoint) (gpointer state, const GpuprofSnapshot * snapshot);
} GpuprofOutputClass;

/* an open output */
typedef struct
{
  const GpuprofOutputClass *klass;
  gpointer state;
  GpuprofBus *bus;              /* subscribed to it (@events), else NULL */
  guint sink;
} GpuprofOutput;

/* the table, in the order outputs are called at run end */
GPUPROF_API
const GpuprofOutputClass *const *gpuprof_output_classes (guint * n);
GPUPROF_API
const GpuprofOutputClass *gpuprof_output_class_find (const gchar * name);

/* the enabled outputs that opened, as GpuprofOutput *, in table order */
GPUPROF_API
GPtrArray *gpuprof_outputs_open (const GpuprofParams * params,
    const GpuprofOutputContext * ctx);
GPUPROF_API
GpuprofOutput *gpuprof_outputs_find (GPtrArray * outputs, const gchar * name);
GPUPROF_API
void gpuprof_outputs_describe (GPtrArray * outputs, GString * report);
GPUPROF_API
void gpuprof_outputs_run_end (GPtrArray * outputs, const GpuprofRunEnd * end);
void gpuprof_outputs_interval (GPtrArray * outputs,
    const GpuprofInterval * iv);
gboolean gpuprof_outputs_want_checkpoints (GPtrArray * outputs);
void gpuprof_outputs_checkpoint (GPtrArray * outputs,
    const GpuprofSnapshot * snapshot);
GPUPROF_API
void gpuprof_outputs_close (GPtrArray * outputs);
GPUPROF_API
void gpuprof_outputs_free (GPtrArray * outputs);

/* the trace output's writer, for the hooks' rings; NULL when not open */
GPUPROF_API
GpuprofTrace *gpuprof_output_trace_get (GpuprofOutput * output);

/* An output path with placeholders (gpuprof-outfile.h) names one file per
 * pipeline (%n) or one for all: the output's state per expanded path,
 * created zeroed on first use, cleared by @clear. When two pipelines
 * write one path, one line says so (put %n in it). */
typedef struct _GpuprofOutputPaths GpuprofOutputPaths;

GpuprofOutputPaths *gpuprof_output_paths_new (const gchar * key,
    const gchar * tmpl, gsize state_size, GDestroyNotify clear);
/* the state of @pipeline's file; its expanded path in *path (owned).
 * @whole: the file holds one pipeline's run (a summary, a page), so a
 * second pipeline writing it is said; files of rows (live files) are not */
gpointer gpuprof_output_paths_get (GpuprofOutputPaths * paths,
    const gchar * pipeline, gboolean whole, const gchar ** path);
/* @func (state, user_data) for each path's state */
void gpuprof_output_paths_foreach (GpuprofOutputPaths * paths, GFunc func,
    gpointer user_data);
void gpuprof_output_paths_free (GpuprofOutputPaths * paths);

G_END_DECLS
