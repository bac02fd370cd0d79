/* gst-gpuprof sweep: run one pipeline template at many settings under the
 * tracer and say which setting wins (docs/sweep.md).
 *
 * This header is the pure part — templates, the figures of one point taken
 * from its run summary, the three search modes over a measuring callback,
 * and the outputs — so it is unit-tested without running pipelines.
 * Running the points (processes, timeouts, Ctrl-C, progress) is in
 * gpuprof-sweep-run.c.
 */
#pragma once

#include <glib.h>
#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

#define GPUPROF_SWEEP_SCHEMA "gpuprof-sweep"
#define GPUPROF_SWEEP_VERSION 1

typedef enum
{
  GPUPROF_SWEEP_GRID,           /* every combination */
  GPUPROF_SWEEP_PLATEAU,        /* per group: the batch where doubling stops paying */
  GPUPROF_SWEEP_MAX_STREAMS,    /* per group: most streams holding an fps floor */
} GpuprofSweepMode;

/* One placeholder and the values to try, in the order given. */
typedef struct
{
  gchar *name;
  GStrv values;
} GpuprofSweepVar;

/* One run: its settings and what it measured. */
typedef struct
{
  GStrv values;                 /* one per variable, in the variables' order */
  gboolean done;                /* ran and its summary was read */
  gchar *error;                 /* why it has no figures, NULL when done */
  gchar *summary;               /* the run's summary file */
  gdouble seconds;              /* wall time of the whole process */
  guint64 streams;              /* streams the figures are divided by */
  guint64 frames;               /* frames through the pipeline */
  guint64 wall_ns;              /* first to last activity of the pipeline */
  gdouble fps;                  /* frames per second, all streams */
  gdouble fps_per_stream;
  gdouble latency_p50_ms, latency_p99_ms; /* batch push -> sink; < 0 unknown */
  gdouble gpu_ms_per_batch, gpu_ms_per_frame; /* < 0 without GPU figures */
  gdouble fill;                 /* the mux's batch fill 0..1; < 0 no mux */
  gchar *limiting;              /* limiting stage, else the verdict's element */
  gchar *advice;                /* first advice "stage: setting", or NULL */
  /* what limits the run (the summary's run.limit_*): why fps flattens */
  gchar *limit_kind;            /* stage, cpu, gpu, input, clock; NULL none */
  gchar *limit_what;
  gdouble limit_utilisation;
  gdouble limit_headroom;       /* 0 unknown */
  gchar *next_what;             /* the runner-up, NULL none */
} GpuprofSweepPoint;

/* The answer of a search mode for one group (values of the other
 * variables). */
typedef struct
{
  GStrv group;                  /* "name=value" of the variables not searched */
  gchar *answer;                /* plateau batch or max streams; NULL: none */
  gchar *note;                  /* how it was reached, e.g. "not reached" */
} GpuprofSweepResult;

typedef struct
{
  GpuprofSweepMode mode;
  gchar *template;
  gboolean command;             /* template is a shell command */
  GPtrArray *vars;              /* GpuprofSweepVar */
  gchar *batch_var;             /* plateau: the variable searched */
  gchar *streams_var;           /* max-streams: the variable searched; all
                                 * modes: divides fps into per-stream fps */
  gdouble threshold;            /* plateau: doubling must give more than this (0.05) */
  gdouble fps_floor;            /* max-streams: per-stream fps to hold */
  guint64 max_streams;          /* max-streams: where doubling stops */
  GPtrArray *points;            /* GpuprofSweepPoint, in the order run */
  GPtrArray *results;           /* GpuprofSweepResult (plateau, max-streams) */
  gboolean interrupted;         /* stopped early: what finished is kept */
} GpuprofSweep;

/* Runs @pt (its values set). Returns FALSE to stop the sweep (Ctrl-C). */
typedef gboolean (*GpuprofSweepMeasureFunc) (GpuprofSweep * sweep,
    GpuprofSweepPoint * pt, gpointer user_data);

GpuprofSweep *gpuprof_sweep_new (void);
void gpuprof_sweep_free (GpuprofSweep * sweep);
gboolean gpuprof_sweep_add_var (GpuprofSweep * sweep, const gchar * spec,
    GError ** err);
gboolean gpuprof_sweep_check (GpuprofSweep * sweep, GError ** err);
gint gpuprof_sweep_var_index (const GpuprofSweep * sweep, const gchar * name);

gchar *gpuprof_sweep_expand (const gchar * template, const GpuprofSweep *
    sweep, const gchar * const *values, GError ** err);

void gpuprof_sweep_point_measure (GpuprofSweepPoint * pt,
    const GpuprofSnapshot * snap, guint64 streams);

guint gpuprof_sweep_estimate_points (const GpuprofSweep * sweep);
void gpuprof_sweep_run (GpuprofSweep * sweep, GpuprofSweepMeasureFunc measure,
    gpointer user_data);

gchar *gpuprof_sweep_format_table (const GpuprofSweep * sweep);
gchar *gpuprof_sweep_to_csv (const GpuprofSweep * sweep);
gchar *gpuprof_sweep_to_json (const GpuprofSweep * sweep);

#define GPUPROF_SWEEP_ERROR (gpuprof_sweep_error_quark ())
GQuark gpuprof_sweep_error_quark (void);

G_END_DECLS
