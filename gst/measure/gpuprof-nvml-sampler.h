/* gpuprof: the GPU engines over time, read from NVML on the sampler
 * thread (issue 23, docs/resources.md "GPU engines in the run").
 *
 * A GpuprofNvmlSampler owns the NVML reader (gst/gpu/gpuprof-nvml.h) and,
 * per device, a bounded history of cumulative sums: each reading adds its
 * SM, memory, NVDEC and NVENC utilisation, whether each was saturated, the
 * SM clock, the clock event (throttle) reasons and this process's samples
 * to running totals, kept with the reading's time. The figures of any
 * window [t0, t1] (a pipeline's run, a measurement window, an interval)
 * are the difference of two entries: no per-run registration, no reset.
 * When the history is full, every other entry goes (the sums stay exact at
 * the entries kept; a window edge then falls on the nearest entry kept,
 * and its peaks are the most of the entries merged), so memory is bounded
 * by GPUPROF_NVML_SAMPLER_HISTORY per device whatever the run's length.
 *
 * Threading: gpuprof_nvml_sampler_tick() runs on the sampler thread (a
 * ticker registration of the session), never on the buffer path: NVML
 * calls are ioctls into the driver (~4.4 ms a reading measured on the
 * H100 host). The figures are read under the sampler's lock from any
 * thread (reports, scrapes). The tick times itself (the thread's CPU
 * clock) and reads less often when a reading costs more than
 * GPUPROF_NVML_SAMPLER_CPU_BUDGET of one core at the asked rate. */
#pragma once

#include "gpuprof-api.h"

#include <gst/gst.h>

#include "gpuprof-nvml.h"
#include "gpuprof-objects.h"
#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

/* entries kept per device (each ~400 bytes) */
#define GPUPROF_NVML_SAMPLER_HISTORY 512
/* a reading at or above this share of its period is saturated */
#define GPUPROF_NVML_SATURATED_PCT 90
/* the most of one core the readings may take: a dearer reading is made
 * less often than asked */
#define GPUPROF_NVML_SAMPLER_CPU_BUDGET 0.01

typedef struct _GpuprofNvmlSampler GpuprofNvmlSampler;

/* the engines NVML gives a utilisation for */
typedef enum
{
  GPUPROF_NVML_ENGINE_SM = 0,
  GPUPROF_NVML_ENGINE_MEM,
  GPUPROF_NVML_ENGINE_DEC,
  GPUPROF_NVML_ENGINE_ENC,
  GPUPROF_NVML_N_ENGINES
} GpuprofNvmlEngine;

/* the clock event reasons NVML has, by bit number (gpuprof-nvml.h) */
#define GPUPROF_NVML_N_REASONS 9

/* One device over a window: sums are of readings whose time is in it */
typedef struct
{
  guint64 readings;
  guint64 first_ns, last_ns;    /* monotonic: the first and last reading */
  guint64 known[GPUPROF_NVML_N_ENGINES];        /* readings with the engine */
  gdouble mean[GPUPROF_NVML_N_ENGINES];         /* 0..1 */
  gdouble peak[GPUPROF_NVML_N_ENGINES];         /* 0..1 */
  gdouble saturated[GPUPROF_NVML_N_ENGINES];    /* share of known, 0..1 */
  guint64 clock_known;
  gdouble clock_mhz;            /* mean SM clock */
  guint clock_max_mhz;
  guint64 reasons_known;
  gdouble throttled;            /* share of readings held down by power,
                                 * heat or slowdown (not idle), 0..1 */
  gdouble reason_share[GPUPROF_NVML_N_REASONS]; /* share per reason bit */
  guint64 mem_used_peak, mem_total;     /* bytes */
  /* this process's share of the device's time per engine (SM, NVDEC,
   * NVENC): Σself / Σall of NVML's process samples; -1 unknown */
  guint64 process_known;
  gdouble self_share[3];
  guint procs_peak;
} GpuprofNvmlFigures;

/* What the tick costs (the readings only) */
typedef struct
{
  guint64 readings;             /* ticks that read */
  guint64 cpu_ns, wall_ns;      /* their sums on the sampler thread */
  gint64 period_us;             /* asked */
  gint64 effective_us;          /* read every this often now */
} GpuprofNvmlSamplerCost;

/* A sampler of NVML (@library: as gpuprof_nvml_open()), @hz readings per
 * second asked (> 0). NVML is opened by the first tick, on the sampler
 * thread: every NVML call of a run is made there. */
GPUPROF_API
GpuprofNvmlSampler *gpuprof_nvml_sampler_new (const gchar * library,
    gdouble hz);

typedef enum
{
  GPUPROF_NVML_SAMPLER_PENDING, /* the first tick has not run */
  GPUPROF_NVML_SAMPLER_OPEN,
  GPUPROF_NVML_SAMPLER_FAILED,  /* NVML could not open: see @reason */
} GpuprofNvmlSamplerState;

/* Where opening stands, waiting up to @timeout_us for the first tick
 * (0: not at all); @reason (nullable): the one line when FAILED, owned by
 * the sampler */
GPUPROF_API
GpuprofNvmlSamplerState gpuprof_nvml_sampler_state (GpuprofNvmlSampler * s,
    gint64 timeout_us, const gchar ** reason);
GPUPROF_API
void gpuprof_nvml_sampler_free (GpuprofNvmlSampler * s);
/* the ticker period to register at */
GPUPROF_API
gint64 gpuprof_nvml_sampler_period_us (const GpuprofNvmlSampler * s);
/* one reading of every device when due; on the sampler thread only */
GPUPROF_API
void gpuprof_nvml_sampler_tick (GpuprofNvmlSampler * s, gint64 now_us);
/* the ticker function (GpuprofTickFunc) of a sampler as user data */
GPUPROF_API
gboolean gpuprof_nvml_sampler_tick_func (gint64 now_us, gpointer sampler);

GPUPROF_API
guint gpuprof_nvml_sampler_device_count (GpuprofNvmlSampler * s);
GPUPROF_API
const GpuprofNvmlDevice *gpuprof_nvml_sampler_device (GpuprofNvmlSampler
    * s, guint index);
/* NVML's optional calls this driver lacks ("" when none) */
GPUPROF_API
const gchar *gpuprof_nvml_sampler_missing (GpuprofNvmlSampler * s);
GPUPROF_API
void gpuprof_nvml_sampler_cost (GpuprofNvmlSampler * s,
    GpuprofNvmlSamplerCost * out);

/* Device @index over [@t0_ns, @t1_ns] (monotonic; 0: unbounded); FALSE
 * when no reading falls in it */
GPUPROF_API
gboolean gpuprof_nvml_sampler_figures (GpuprofNvmlSampler * s, guint index,
    guint64 t0_ns, guint64 t1_ns, GpuprofNvmlFigures * out);
/* the newest reading of device @index; FALSE when none yet */
GPUPROF_API
gboolean gpuprof_nvml_sampler_last (GpuprofNvmlSampler * s, guint index,
    GpuprofNvmlReading * out);

/* The NVML devices @pl uses: from the CUDA devices CUPTI saw (the
 * snapshot's gpu_devices rows, CUDA ordinals) and the elements' own
 * device properties (cuda-device-id, gpu-id, device-id); every device
 * when neither tells. Returns a bit mask (device 0 = bit 0); @how says
 * where it came from, one line ("CUDA device 0 (CUPTI)", "all 2 devices:
 * which the pipeline uses is not known"). */
GPUPROF_API
guint64 gpuprof_nvml_sampler_pipeline_devices (GpuprofNvmlSampler * s,
    GpuprofObjects * objects, GpuprofPipeline * pl,
    const GpuprofSnapshot * snap, gchar ** how);

/* The snapshot's gpu_resources rows: one per device of @mask over
 * [@t0_ns, @t1_ns] (monotonic); @how: gpuprof_nvml_sampler_pipeline_devices()'s */
GPUPROF_API
void gpuprof_nvml_sampler_fill (GpuprofNvmlSampler * s, GpuprofSnapshot * snap,
    guint64 mask, const gchar * how, guint64 t0_ns, guint64 t1_ns);

G_END_DECLS
