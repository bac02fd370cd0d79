/* gpuprof: what limits a run — the ranked verdict (the limits table).
 *
 * A bottleneck is causal: the thing whose speed-up speeds the pipeline
 * up. It can be a stage (an element, on all its threads), a resource the
 * stages share (the CPUs, a GPU engine), the input (a live source, an
 * application feeding appsrc) or the clock (a synced sink or element
 * paces the run: then nothing limits, and the answer is the headroom).
 *
 * Each of these is a *candidate*, made from the snapshot's rows by a
 * candidate source (a function of the list below, in gpuprof-limits.c).
 * gpuprof_limits_compute() collects them, ranks them and writes the
 * limits table and the run's limit_* / next_* fields. Pure functions of
 * the snapshot's rows (no pipeline, no clock): a saved summary gets the
 * same verdict, and the rules are tested on synthetic rows
 * (tests/tracer/test-limits.c). The rules and thresholds are documented in
 * docs/tracer.md, "Report and verdict".
 *
 * Adding a candidate source (the GPU engines, issue 23): write
 *
 *   void gpuprof_limits_gpu_candidates (const GpuprofSnapshot * snap,
 *       GpuprofLimitCandidates * c);
 *
 * in gst/snapshot/, reading snap->resources (the gpu-* rows the sampler
 * filled) and snap->elements, calling gpuprof_limits_add() for each
 * engine worth naming (gpuprof-gpu-limits.c, which also holds
 * gpuprof_limits_compute(): the calls go one way). The
 * resources table must be filled before gpuprof_snapshot_compute_verdict()
 * runs (gpuprof-rows.c fills it before the verdict).
 */
#pragma once

#include "gpuprof-api.h"

#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

/* the kinds of the limits table */
#define GPUPROF_LIMIT_STAGE "stage"
#define GPUPROF_LIMIT_CPU "cpu"
#define GPUPROF_LIMIT_GPU "gpu"
#define GPUPROF_LIMIT_INPUT "input"
#define GPUPROF_LIMIT_CLOCK "clock"

/* Thresholds (docs/tracer.md, "Report and verdict") */
/* a stage whose thread is this busy (the work of the stages on it over
 * its wall) is at its limit: the frames it cannot take wait before it */
#define GPUPROF_LIMITS_STAGE_SATURATED 0.90
/* the CPUs: cores used over cores available (the cpu resources row) */
#define GPUPROF_LIMITS_CPU_SATURATED 0.90
/* ... and the process's threads waited this share of their runnable time
 * for a core (schedstat run delay), or its cgroup throttled it: all cores
 * used by as many busy threads is no contention, the threads limit */
#define GPUPROF_LIMITS_CPU_WAIT 0.20
/* ... and they limit whatever this process uses of them when its threads
 * waited for a core this share of their runnable time (as long as they
 * ran, or more: other load holds the cores; the stages then read occupied
 * because they wait for a core) while they wanted the cores: their CPU and
 * their waits for one at least GPUPROF_LIMITS_CPU_SATURATED of the cores */
#define GPUPROF_LIMITS_CPU_STARVED 0.50
/* a source whose loop waited for input this share of its thread's wall
 * is paced by its input */
#define GPUPROF_LIMITS_INPUT_WAIT 0.50
/* an element that syncs and waited on the clock this share of its
 * thread's wall paces the run (a stage that limits delivers late
 * buffers: the sink then waits on none) */
#define GPUPROF_LIMITS_CLOCK_WAIT 0.05
/* headroom is not told beyond this factor */
#define GPUPROF_LIMITS_HEADROOM_MAX 1000.0

/**
 * GpuprofLimitCandidate:
 * @row: the limits row it becomes (rank and headroom are set by the
 *   ranking; kind, what, utilisation, rate, evidence and advice by the
 *   source)
 * @saturated: at its limit by its kind's rule (a stage ≥ 90 % busy or
 *   before which a leaky queue dropped, the CPUs ≥ 90 % of the cores,
 *   NVDEC ≥ 90 % ...): it ranks before the pacers
 * @weight: ties and order within a group: larger first (default: the
 *   utilisation; a stage's: its thread's, then its own)
 * @thread: (nullable): a stage's thread (it points into the snapshot):
 *   the stages on one thread share it, so the runner-up of a stage is the
 *   rest of its thread's work or the busiest stage of another thread
 * @thread_util: that thread's utilisation, all its stages' work over its
 *   wall (a stage's own when the threads table does not have it)
 * @cpu_share: a stage's share of the process's CPU (its cpu_ns over
 *   process_cpu_ns), 0 unknown: once it is sped up, the CPUs carry the
 *   rest, which ranks the cpu candidate behind it
 */
typedef struct
{
  GpuprofLimitRow row;
  gboolean saturated;
  gdouble weight;
  const gchar *thread;
  gdouble thread_util;
  gdouble cpu_share;
} GpuprofLimitCandidate;

typedef struct _GpuprofLimitCandidates GpuprofLimitCandidates;

/**
 * gpuprof_limits_add:
 * @c: the candidates being collected
 * @kind: GPUPROF_LIMIT_STAGE ... GPUPROF_LIMIT_CLOCK
 * @what: element path, "cpus", "GPU 0 NVDEC", ...
 * @utilisation: how busy it is, 0..1 (a pacer's: ignored, the busiest
 *   stage's is used)
 * @saturated: at its limit (see #GpuprofLimitCandidate)
 * @rate: buffers per second through it, 0 unknown
 * @evidence: (transfer full): the figures it is judged on
 * @advice: (transfer full) (nullable): what to do when it limits; the
 *   ranking adds the headroom's sentence
 *
 * Returns: (transfer none): the candidate, valid until the next add (to
 * set its weight)
 */
GPUPROF_API
GpuprofLimitCandidate *gpuprof_limits_add (GpuprofLimitCandidates * c,
    const gchar * kind, const gchar * what, gdouble utilisation,
    gboolean saturated, gdouble rate, gchar * evidence, gchar * advice);

/* A candidate source: adds its candidates from @snap's rows */
typedef void (*GpuprofLimitsSource) (const GpuprofSnapshot * snap,
    GpuprofLimitCandidates * c);

/**
 * gpuprof_limits_compute:
 * @snap: a snapshot with its rows (elements, threads, queues, links,
 *   resources) filled and sorted
 *
 * Collects the candidates of every source, ranks them (saturated
 * resources, then saturated stages, then the pacers — input before
 * clock — then the rest by utilisation), sets each headroom, and writes
 * snap->limits and the run's limit_*, next_*, drops, drops_where and
 * input_bound.
 */
GPUPROF_API
void gpuprof_limits_compute (GpuprofSnapshot * snap);

/* the candidates of the CPU side's rows: stages, input, clock, the CPUs */
void gpuprof_limits_builtin_candidates (const GpuprofSnapshot * snap,
    GpuprofLimitCandidates * c);
/* the GPU engines' (gpuprof-gpu-limits.c) */
void gpuprof_limits_gpu_candidates (const GpuprofSnapshot * snap,
    GpuprofLimitCandidates * c);

/**
 * gpuprof_limits_rank:
 * @snap: where the ranked rows go (snap->limits and the run's fields)
 * @c: (transfer full): the candidates
 *
 * The ranking alone, on candidates made by hand (tests).
 */
GPUPROF_API
void gpuprof_limits_rank (GpuprofSnapshot * snap, GpuprofLimitCandidates * c);

GPUPROF_API
GpuprofLimitCandidates *gpuprof_limits_candidates_new (void);

/* the element-property that sets the threads of a multi-threaded element
 * (x264enc "threads", avdec_* "max-threads", videoconvert "n-threads"),
 * NULL when none is known */
GPUPROF_API
const gchar *gpuprof_limits_threads_property (const gchar * factory);

G_END_DECLS
