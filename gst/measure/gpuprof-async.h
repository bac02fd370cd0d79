/* gpuprof: asynchronous elements — buffers that leave on another thread
 * than the one they arrived on (DeepStream's nvinfer, nvtracker: the chain
 * queues, a worker works, an output thread pushes).
 *
 * An element is followed as asynchronous once a thread it owns
 * (gpuprof-owners.h) pushes on its src pad outside a chain call; from the
 * state change that created its worker threads when it has some, so that
 * its first buffers are followed too. Then:
 *
 *   arrival    chain-pre: the buffer (pointer), its batch, the time, an
 *              NVTX range; the chain's own work on the thread CPU clock
 *   departure  push-pre: matched by the same buffer pointer (in place),
 *              else the oldest arrival (a new buffer); the residency
 *              (arrival -> departure) and the arrival's batch, which the
 *              pushed buffer carries on (gpuprof-batch.c)
 *   in flight  held by the element: from its chain call's return to the
 *              return of the push that took it out (max; the mean is
 *              Little's: residency over the span)
 *   workers    its worker threads' CPU, read on their per-thread CPU clocks
 *              at its own pushes, at EOS, at snapshots and before it stops
 *              them (never in a chain call): the element's work on all its
 *              threads, and each worker's row in the Threads table
 *
 * Arrivals are a ring written by the chain thread(s), departures by the
 * pushing thread: O(1), no lock, no allocation after the first sight.
 * See docs/tracer.md "Asynchronous elements".
 */
#pragma once

#include "gpuprof-api.h"

#include "gpuprof-histogram.h"
#include "gpuprof-objects.h"
#include "gpuprof-workers.h"

G_BEGIN_DECLS

typedef struct _GpuprofAsync GpuprofAsync;

/* Figures of one run, for the snapshot */
typedef struct
{
  guint64 departed;             /* buffers pushed out, matched or not */
  guint64 residency_p50, residency_p99, residency_max, residency_mean;
  gdouble in_flight_mean;
  guint64 in_flight_max;
  guint64 worker_ns;            /* CPU of its worker threads */
  gchar worker_name[16];        /* its busiest worker, "" when none */
  guint64 worker_top_ns;        /* that worker's CPU */
  guint64 span_ns;              /* first arrival -> last worker read */
} GpuprofAsyncFigures;

/* @skip: buffers inside it when it was first seen pushing (they arrived
 * unrecorded: their departures match nothing). A filter that created
 * threads in a state change is followed from then on as a candidate
 * (arrivals, departures, its chain calls on the CPU clock); it is
 * asynchronous once confirmed, when its own thread pushes outside a chain
 * call. */
GPUPROF_API
GpuprofAsync *gpuprof_async_new (GpuprofElement * e, guint64 skip);
gboolean gpuprof_async_confirmed (const GpuprofAsync * a);
void gpuprof_async_confirm (GpuprofAsync * a);
GPUPROF_API
void gpuprof_async_free (GpuprofAsync * a);
/* a new run (nothing streams) */
void gpuprof_async_reset (GpuprofAsync * a);

/* Hot path. @batch: the GpuprofBatchId the buffer carries, 0 if none;
 * @nvtx_msg: the sink pad's NVTX string, NULL: no range;
 * @payload: the range's payload (batch number, else the pad's sequence) */
GPUPROF_API
void gpuprof_async_arrive (GpuprofAsync * a, gconstpointer key,
    guint64 batch, gpointer nvtx_msg, guint64 payload, guint64 ts);
/* The chain kept the buffer (+1), or the push that took it out
 * returned (-1). */
GPUPROF_API
void gpuprof_async_hold (GpuprofAsync * a, gint delta);
/* @key leaves: TRUE when it matched an arrival, whose GpuprofBatchId is
 * returned (0: none); the arrival's NVTX range ends. Arrivals before the
 * one matched by pointer never left (dropped): their ranges end too. */
GPUPROF_API
gboolean gpuprof_async_depart (GpuprofAsync * a, gconstpointer key,
    guint64 ts, guint64 * batch);
/* GpuprofBatchId of the oldest arrival still inside, 0 when none (or it
 * carries no batch): gpuprof_batches_oldest_in_flight() */
guint64 gpuprof_async_oldest_batch (const GpuprofAsync * a);
/* the oldest batch inside whose number is above @after (0: none); looks
 * at the first MAX_SEARCH arrivals inside. Lock-free. */
guint64 gpuprof_async_batch_after (const GpuprofAsync * a, guint64 after);

/* Its worker threads (the element's WORKER threads, gpuprof-workers.h):
 * set, dropped when they push, read by name before the element stops them
 * and listed for the Threads table, all off the buffer path */
GpuprofWorkers *gpuprof_async_get_workers (GpuprofAsync * a);
/* Reads the workers' CPU clocks (one clock_gettime each); skipped while
 * another thread reads them. */
void gpuprof_async_sample (GpuprofAsync * a, guint64 ts);

/* Samples the workers, then the figures */
GPUPROF_API
void gpuprof_async_figures (GpuprofAsync * a, GpuprofAsyncFigures * f);
/* Nothing is inside any more (a flush, the end of a run): the ring is
 * emptied, the NVTX ranges of what was inside end. No push may run. */
GPUPROF_API
void gpuprof_async_drain (GpuprofAsync * a);

G_END_DECLS
