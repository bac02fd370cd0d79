/* gpuprof: GPU attribution, the lifecycle: configure and reset every part
 * (the top of the GPU code, see gpuprof-gpu.h for the order of its files).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-gpu.h"
#include "gpuprof-gpu-engine.h"
#include "gpuprof-gpu-join.h"
#include "gpuprof-gpu-stats.h"
#include "gpuprof-gpu-threads.h"
#include "gpuprof-gpu-wait.h"

/**
 * gpuprof_gpu_configure:
 * @config: limits; zero fields keep their defaults
 *
 * Clears all records and statistics (call before a run).
 */
void
gpuprof_gpu_configure (const GpuprofGpuConfig * c)
{
  gpuprof_gpu_engine_lock ();
  gpuprof_gpu_join_clear_locked ();
  gpuprof_gpu_stats_clear_locked ();
  gpuprof_gpu_engine_configure_locked (c);
  gpuprof_gpu_engine_unlock ();
}

/**
 * gpuprof_gpu_reset:
 *
 * Forgets every record and statistic and the thread slots' elements; keeps
 * the configuration, backend, channels, listeners and element paths.
 */
void
gpuprof_gpu_reset (void)
{
  gpuprof_gpu_engine_lock ();
  gpuprof_gpu_join_clear_locked ();
  gpuprof_gpu_stats_clear_locked ();
  gpuprof_gpu_engine_unlock ();
  gpuprof_gpu_threads_forget ();
  gpuprof_gpu_waits_forget ();
}
