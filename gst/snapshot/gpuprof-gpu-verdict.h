/* gpuprof: the GPU as resources in the verdict (issue 23).
 *
 * Pure functions over a snapshot: its GPU resources rows (NVML), its GPU
 * tables (CUPTI) and its elements. Each engine of a GPU the pipeline uses
 * is a candidate of the ranked verdict (kind "gpu": "GPU 0 NVDEC",
 * "GPU 0 SMs", "GPU 0 copy", "GPU 0 memory", "GPU 0 clocks (throttled:
 * sw_thermal)"), with its utilisation, the evidence and advice that fits
 * it; the verdict ranks them with the stages, the CPUs, the input and the
 * clock. The labels, NVIDIA's own classification for DeepStream done by
 * hand from Nsight (docs/resources.md "The GPU in the verdict"):
 *   decode-bound   NVDEC >= 90 % while decoders are the busiest stages
 *   encode-bound   NVENC >= 90 % while encoders are
 *   compute-bound  SMs >= 90 % busy (NVML, else CUPTI's device busy time),
 *                  the inference stage's GPU time most of it (CUPTI)
 *   copy-bound     copies >= 15 % of the wall and more than the kernels
 *                  (CUPTI)
 *   throttled      clocks held down by power or heat in most readings
 *                  while the GPU works
 * Same answer on a live run and on a saved summary. */
#pragma once

#include "gpuprof-api.h"

#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

#define GPUPROF_GPU_VERDICT_SATURATED 0.90      /* NVDEC, NVENC, SMs, memory */
#define GPUPROF_GPU_VERDICT_COPY_SHARE 0.15     /* copies / wall */
#define GPUPROF_GPU_VERDICT_THROTTLED 0.50      /* share of readings */
#define GPUPROF_GPU_VERDICT_BUSY 0.50   /* a GPU that works: throttling counts */
#define GPUPROF_GPU_VERDICT_DOMINANT 0.50       /* a stage's share of the kernels */
/* a decoder (encoder) is among the busiest stages: this share of the
 * busiest stage's busy at least */
#define GPUPROF_GPU_VERDICT_BUSIEST 0.80

typedef enum
{
  GPUPROF_GPU_BOUND_NONE = 0,   /* a candidate, not saturated */
  GPUPROF_GPU_BOUND_DECODE,
  GPUPROF_GPU_BOUND_ENCODE,
  GPUPROF_GPU_BOUND_COMPUTE,
  GPUPROF_GPU_BOUND_COPY,
  GPUPROF_GPU_BOUND_MEMORY,
  GPUPROF_GPU_BOUND_THROTTLED,
} GpuprofGpuBound;

/* One GPU candidate of the verdict (kind "gpu") */
typedef struct
{
  GpuprofGpuBound bound;        /* NONE: not saturated */
  gchar *what;                  /* "GPU 0 NVDEC" */
  gchar *device;                /* its UUID, "" unknown */
  gdouble utilisation;          /* 0..1 */
  gchar *evidence;              /* starts with the label when bound */
  gchar *advice;
  gchar *stage;                 /* the stage it concerns (decoders, the
                                 * inference stage), NULL none */
} GpuprofGpuCandidate;

/* The snapshot's resources rows of the GPUs (kinds gpu-sm, gpu-nvdec,
 * gpu-nvenc, gpu-memory, gpu-clock from gpu_resources; gpu-copy from
 * CUPTI's copies), replacing the gpu-* rows there, the others (cpu) kept */
GPUPROF_API
void gpuprof_gpu_verdict_fill_resources (GpuprofSnapshot * snap);

/* "decode-bound", ... ("" for NONE) */
GPUPROF_API
const gchar *gpuprof_gpu_bound_name (GpuprofGpuBound bound);

/* The GPU candidates of @snap, most utilised first (GpuprofGpuCandidate,
 * cleared by the array). The gpu row's ncu command (the top kernels of
 * the compute-bound stage) goes into that candidate's advice. */
GPUPROF_API
GArray *gpuprof_gpu_verdict_candidates (const GpuprofSnapshot * snap);

/* The one a pipeline is bound by, the first saturated candidate of
 * @candidates; %NULL none */
GPUPROF_API
const GpuprofGpuCandidate *gpuprof_gpu_verdict_bound (GArray * candidates);

/* The element whose kernels take most GPU time (CUPTI): the inference
 * stage of an analytics pipeline; %NULL when none ran a kernel. @share:
 * its part of all kernel time */
GPUPROF_API
const GpuprofGpuElementRow *gpuprof_gpu_verdict_top_stage (const
    GpuprofSnapshot * snap, gdouble * share);

/* The ncu command that profiles just @stage's top kernels of @snap
 * (gpu_kernels, mangled names as CUPTI gives them), inside gpuprof's
 * measurement window when there is one (@window: the window= value, %NULL
 * none), for the command line @argv (this process's, %NULL: "<your
 * command>"). %NULL when @stage ran no listed kernel. */
GPUPROF_API
gchar *gpuprof_gpu_ncu_command (const GpuprofSnapshot * snap,
    const gchar * stage, const gchar * window, const gchar * const *argv);

G_END_DECLS
