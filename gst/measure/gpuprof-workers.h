/* gpuprof: the CPU clocks of threads an element owns that run none of its
 * calls (gpuprof-owners.h: created in its state changes) — an asynchronous
 * element's workers, a sink's render thread, a source's reader thread.
 *
 * Each is read on its per-thread CPU clock (one clock_gettime, no /proc)
 * off the buffer path only: at snapshots, before its element stops it
 * (PAUSED -> READY) and, for an asynchronous element, at its own pushes
 * and at EOS. Its work is its CPU time, the rest of its wall time it
 * waited. A thread that ended keeps its last reading; one whose clock
 * cannot be read (gone before it was first read) keeps busy 0.
 *
 * One reader at a time ('reading', a spin flag): a reading on a push is
 * skipped while another runs, snapshots wait. No allocation. */
#pragma once

#include "gpuprof-objects.h"

G_BEGIN_DECLS

#define GPUPROF_WORKERS_MAX 8

/* One thread, for the Threads table: its CPU in this run and its wall
 * time, from when it was first seen in this run to its last reading while
 * alive (one that ended keeps its figures up to its end). */
typedef struct
{
  gint tid;
  gchar name[16];               /* the kernel's (comm) */
  guint64 cpu_ns;
  guint64 first_ts, last_ts;    /* hook time base (gpuprof-clock.h) */
} GpuprofWorker;

typedef struct
{
  gint tid;                     /* 0: free */
  gboolean alive;               /* else ended or moved to another owner:
                                 * what it did while ours stays counted */
  gchar name[16];
  guint64 last;                 /* its CPU clock at the last read */
  guint64 run_ns;               /* CPU in this run */
  guint64 first_ts, last_ts;    /* first seen in this run, last read alive */
} GpuprofWorkerClock;

/* Embedded in its holder (an asynchronous element's record) or an
 * element's own (GpuprofElement.workers), zeroed: no thread yet */
struct _GpuprofWorkers
{
  gint reading;
  guint32 owner_id;             /* the element whose workers they are */
  guint owners_seen;            /* gpuprof_owners_generation() when their
                                 * owners were last looked at */
  GpuprofWorkerClock w[GPUPROF_WORKERS_MAX];
};

/* Threads to read (@tids), workers of @owner_id seen at @ts (a hook's); a
 * thread already listed keeps its reading, a new one is counted from its
 * start. A thread is counted only while @owner_id owns it as a worker
 * (gpuprof-owners.h): one that becomes a pad task of another element (GLib's
 * pool hands a thread to several elements) keeps what it did as ours. */
void gpuprof_workers_set (GpuprofWorkers * ws, guint32 owner_id,
    const gint * tids, guint n, guint64 ts);
/* @tid has hook records of its own (it pushes): no longer read here */
void gpuprof_workers_drop (GpuprofWorkers * ws, gint tid);
/* Reads the clocks at @ts (0: now); FALSE, nothing read, while another
 * thread reads them. */
gboolean gpuprof_workers_sample (GpuprofWorkers * ws, guint64 ts);
/* Reads the clocks and the names (a thread names itself once started,
 * often after it was seen); waits for another reading. */
void gpuprof_workers_sample_named (GpuprofWorkers * ws);
/* gpuprof_workers_sample_named(), then the threads read in this run
 * into @out; returns how many. */
guint gpuprof_workers_list (GpuprofWorkers * ws,
    GpuprofWorker out[GPUPROF_WORKERS_MAX]);
/* gpuprof_workers_sample_named(), then the CPU of all, the busiest's in
 * @top (its name, "" when none) */
guint64 gpuprof_workers_total (GpuprofWorkers * ws, GpuprofWorker * top);
/* A new run: CPU before it is not its; ended threads are forgotten */
void gpuprof_workers_reset (GpuprofWorkers * ws);

G_END_DECLS
