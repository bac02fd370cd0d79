/* What the NVML sampler (gst/measure/gpuprof-nvml-sampler.c) costs its
 * thread per reading: CPU (CLOCK_THREAD_CPUTIME_ID) and wall around each
 * tick, min/median/max, and the history's memory once full.
 *   bench/nvml-sampler-cost [READINGS] [LIBRARY]
 * LIBRARY: libnvidia-ml.so.1 by default (on the GPU host: the driver's,
 * every device), or the fake (build/tests/gpu/libfakenvml.so, with
 * FAKE_NVML_DEVICES=N): then it measures gpuprof's own part of a reading,
 * the fake's calls being nearly free. Not a test: prints figures. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpuprof-nvml-sampler.h"

static guint64
cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (guint64) ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static int
cmp (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  guint n = argc > 1 ? (guint) atoi (argv[1]) : 2000;
  const gchar *lib = argc > 2 ? argv[2] : NULL;
  /* a rate no reading slows: every tick reads */
  GpuprofNvmlSampler *s = gpuprof_nvml_sampler_new (lib, 1e6);
  guint64 *cpu = g_new (guint64, n), *wall = g_new (guint64, n);
  const gchar *reason = NULL;
  GpuprofNvmlFigures f;
  guint i;

  gpuprof_nvml_sampler_tick (s, g_get_monotonic_time ());       /* opens */
  if (gpuprof_nvml_sampler_state (s, 0, &reason) !=
      GPUPROF_NVML_SAMPLER_OPEN) {
    printf ("%s\n", reason);
    return 1;
  }
  for (i = 0; i < n; i++) {
    guint64 c0 = cpu_ns ();
    gint64 w0 = g_get_monotonic_time ();

    /* each tick a period after the last: every one reads */
    gpuprof_nvml_sampler_tick (s, w0 + (gint64) (i + 1) * G_USEC_PER_SEC);
    cpu[i] = cpu_ns () - c0;
    wall[i] = (g_get_monotonic_time () - w0) * 1000;
  }
  qsort (cpu, n, sizeof (guint64), cmp);
  qsort (wall, n, sizeof (guint64), cmp);
  gpuprof_nvml_sampler_figures (s, 0, 0, 0, &f);
  printf ("%u readings of %u device(s) (%s): CPU per reading min %.1f µs, "
      "median %.1f µs, max %.1f µs; wall median %.1f µs\n", n,
      gpuprof_nvml_sampler_device_count (s), lib ? lib : "libnvidia-ml.so.1",
      cpu[0] / 1e3, cpu[n / 2] / 1e3, cpu[n - 1] / 1e3, wall[n / 2] / 1e3);
  printf ("a reading every 500 ms (nvml-hz=2): %.4f %% of one core; the "
      "history: %u readings summed in at most %u entries a device\n",
      100.0 * cpu[n / 2] / 5e8, (guint) f.readings,
      GPUPROF_NVML_SAMPLER_HISTORY);
  gpuprof_nvml_sampler_free (s);
  g_free (cpu);
  g_free (wall);
  return 0;
}
