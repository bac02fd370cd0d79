/* gpuprof output "summary": stats=<path> writes the run as JSON, and one
 * CSV file per table beside it (gpuprof_summary_write(),
 * docs/summary-schema.md). Each run end rewrites the files, and so does
 * each checkpoint while the run goes on. The path takes placeholders (one
 * file per pipeline with %n); the files go by the rules of
 * gpuprof-outfile.h (a FIFO or /dev/stdout gets the JSON of each run end,
 * and nothing beside it unless stats-dir= says where). */
#include "gpuprof-output.h"
#include "gpuprof-outfile.h"
#include "gpuprof-summary.h"
#include "gpuprof-live.h"

#include <string.h>

/* one expanded stats= path */
typedef struct
{
  gboolean known;               /* kind and base below are set */
  GpuprofOutfileKind kind;
  gchar *base;                  /* the files beside are named from it; NULL:
                                 * they go nowhere */
  /* interval=: <base>-live.jsonl and a CSV file per live table, kept open
   * and written per interval so a reader sees each line as it comes */
  GpuprofOutfile *jsonl, *csv[GPUPROF_LIVE_N_TABLES];
  gboolean live_failed;         /* said once */
} SummaryFile;

typedef struct
{
  GpuprofOutputPaths *paths;    /* of SummaryFile */
  gchar *dir;                   /* stats-dir=, NULL = beside */
  gboolean nowhere_said;
} SummaryOutput;

static gboolean
summary_enabled (const GpuprofParams * params)
{
  return params->stats_path != NULL;
}

static void
summary_file_close (gpointer data, gpointer user_data)
{
  SummaryFile *f = data;
  guint id;

  g_clear_pointer (&f->jsonl, gpuprof_outfile_close);
  for (id = 0; id < GPUPROF_LIVE_N_TABLES; id++)
    g_clear_pointer (&f->csv[id], gpuprof_outfile_close);
}

static void
summary_file_clear (gpointer data)
{
  SummaryFile *f = data;

  summary_file_close (f, NULL);
  g_free (f->base);
}

static gpointer
summary_open (const GpuprofParams * params, const GpuprofOutputContext * ctx)
{
  SummaryOutput *s = g_new0 (SummaryOutput, 1);

  /* created at the first run end: a path that cannot be written is said
   * then, with the reason */
  s->paths = gpuprof_output_paths_new ("stats", params->stats_path,
      sizeof (SummaryFile), summary_file_clear);
  s->dir = g_strdup (params->stats_dir);
  return s;
}

/* @pipeline's file, what it is and where the files beside it go */
static SummaryFile *
summary_file (SummaryOutput * s, const gchar * pipeline, gboolean whole,
    const gchar ** path)
{
  SummaryFile *f = gpuprof_output_paths_get (s->paths, pipeline, whole, path);
  gchar *dir;

  if (f->known)
    return f;
  f->known = TRUE;
  f->kind = gpuprof_outfile_kind (*path);
  dir = s->dir ? gpuprof_outfile_expand (s->dir, pipeline) : NULL;
  f->base = gpuprof_outfile_sibling_base (*path, dir);
  g_free (dir);
  if (!f->base && !s->nowhere_said) {
    s->nowhere_said = TRUE;
    g_printerr ("gpuprof: stats=%s is not a regular file: only the JSON "
        "summary goes there; its CSV files and live files are not written "
        "(stats-dir=<folder> puts them there)\n", *path);
  }
  return f;
}

static void
summary_run_end (gpointer state, const GpuprofRunEnd * end)
{
  SummaryOutput *s = state;
  const gchar *path;
  SummaryFile *f = summary_file (s, end->snapshot->pipeline, TRUE, &path);

  gpuprof_summary_write (end->snapshot, path, f->base);
}

/* a stream gets each run's summary once, at its end: not a summary per
 * checkpoint */
static void
summary_checkpoint (gpointer state, const GpuprofSnapshot * snap)
{
  SummaryOutput *s = state;
  const gchar *path;
  SummaryFile *f = summary_file (s, snap->pipeline, TRUE, &path);

  if (f->kind != GPUPROF_OUTFILE_STREAM)
    gpuprof_summary_write (snap, path, f->base);
}

/* takes path */
static GpuprofOutfile *
open_live (SummaryFile * f, gchar * path)
{
  GpuprofOutfile *out = gpuprof_outfile_open ("live file", path,
      GPUPROF_OUTFILE_TRUNCATE);

  /* said by the open; the other live files are not tried again */
  if (!out)
    f->live_failed = TRUE;
  g_free (path);
  return out;
}

static gboolean
open_live_files (SummaryFile * f)
{
  guint id;

  if (!f->jsonl && !(f->jsonl = open_live (f, gpuprof_live_path (f->base,
                  "jsonl"))))
    return FALSE;
  for (id = 0; id < GPUPROF_LIVE_N_TABLES; id++) {
    gchar *header;

    if (f->csv[id])
      continue;
    if (!(f->csv[id] = open_live (f, gpuprof_live_csv_path (f->base, id))))
      return FALSE;
    header = gpuprof_live_csv_header (id);
    gpuprof_outfile_write (f->csv[id], header, strlen (header));
    g_free (header);
  }
  return TRUE;
}

static void
summary_interval (gpointer state, const GpuprofInterval * iv)
{
  SummaryOutput *s = state;
  const gchar *path;
  SummaryFile *f = summary_file (s, iv->snapshot->pipeline, FALSE, &path);
  gchar *line;
  guint id;

  if (!f->base || f->live_failed || !open_live_files (f))
    return;
  line = gpuprof_live_json_line (iv);
  gpuprof_outfile_write (f->jsonl, line, strlen (line));
  g_free (line);
  for (id = 0; id < GPUPROF_LIVE_N_TABLES; id++) {
    GString *rows = g_string_new (NULL);

    gpuprof_live_append_csv (rows, iv, id);
    gpuprof_outfile_write (f->csv[id], rows->str, rows->len);
    g_string_free (rows, TRUE);
  }
}

static void
summary_close (gpointer state)
{
  SummaryOutput *s = state;

  gpuprof_output_paths_foreach (s->paths, summary_file_close, NULL);
}

static void
summary_free (gpointer state)
{
  SummaryOutput *s = state;

  gpuprof_output_paths_free (s->paths);
  g_free (s->dir);
  g_free (s);
}

const GpuprofOutputClass gpuprof_output_summary = {
  .name = "summary",
  .enabled = summary_enabled,
  .open = summary_open,
  .run_end = summary_run_end,
  .close = summary_close,
  .free = summary_free,
  .interval = summary_interval,
  .checkpoint = summary_checkpoint,
};
