/* gpuprof: the GPU's candidates of the ranked verdict (issue 23): each
 * engine of gpuprof-gpu-verdict.c becomes a "gpu" candidate of
 * gpuprof-limits.h, saturated where its label holds (decode-, encode-,
 * compute-, copy-, memory-bound, throttled).
 * gpuprof_limits_compute() is here: it collects the CPU side's
 * candidates (gpuprof-limits.c) and the GPU's, then ranks them (calls go
 * one way: this file -> gpuprof-limits.c, no circle). */
#include "gpuprof-limits.h"
#include "gpuprof-gpu-verdict.h"

void
gpuprof_limits_gpu_candidates (const GpuprofSnapshot * snap,
    GpuprofLimitCandidates * c)
{
  GArray *cands = gpuprof_gpu_verdict_candidates (snap);
  guint i;

  for (i = 0; i < cands->len; i++) {
    const GpuprofGpuCandidate *g = &g_array_index (cands,
        GpuprofGpuCandidate, i);

    /* an engine nobody used is no candidate */
    if (g->utilisation < 0.01 && g->bound == GPUPROF_GPU_BOUND_NONE)
      continue;
    /* at its limit in the ranking only when the engine is full (or its
     * clocks are held down): copies at 15 % of the wall are a finding to
     * fix, not what bounds the run (GPU host, 16 streams: copy-bound at
     * 15 % ranked above an OSD 99 % occupied, whose removal is what sped
     * the run up) */
    gpuprof_limits_add (c, GPUPROF_LIMIT_GPU, g->what, g->utilisation,
        g->bound == GPUPROF_GPU_BOUND_THROTTLED
        || (g->bound != GPUPROF_GPU_BOUND_NONE
            && g->utilisation >= GPUPROF_GPU_VERDICT_SATURATED), 0.0,
        g_strdup (g->evidence),
        g->advice && *g->advice ? g_strdup (g->advice) : NULL);
  }
  g_array_unref (cands);
}

void
gpuprof_limits_compute (GpuprofSnapshot * s)
{
  GpuprofLimitCandidates *c = gpuprof_limits_candidates_new ();

  gpuprof_limits_builtin_candidates (s, c);
  gpuprof_limits_gpu_candidates (s, c);
  gpuprof_limits_rank (s, c);
}
