/* Our own cost per GPU op on each collection path, without a GPU: the real
 * loader and engine fed by the fake libcupti (tests/gpu/fake-cupti.c).
 *   bench/cupti-fake-cost FAKE_LIBCUPTI [N] [callback|activity]
 * N launches inside chain calls on this thread, then a forced flush; prints
 * ns per op for the launches (the launching thread: callbacks, or external
 * id pushes and the fake's API records) and for the flush (the collector:
 * join or lookup, statistics). The fake's own record making is in both.
 * Under callgrind (valgrind --tool=callgrind) the per-function counts show
 * where it goes. */
#include <gst/gst.h>
#include <dlfcn.h>
#include <stdlib.h>

#include "gpuprof-clock.h"
#include "gpuprof-cupti.h"
#include "gpuprof-gpu.h"

int
main (int argc, char **argv)
{
  GpuprofCuptiSettings s = { GPUPROF_CUPTI_ON, NULL, 60000, 256 << 20, 0 };
  guint32 (*launch) (int, const char *, guint64, guint64);
  guint n = argc > 2 ? atoi (argv[2]) : 100000, i;
  gchar *reason = NULL;
  GpuprofGpuTotals t;
  guint64 t0, t1, t2;
  void *mod;

  if (argc < 2) {
    g_printerr ("usage: %s FAKE_LIBCUPTI [N] [callback|activity]\n", argv[0]);
    return 2;
  }
  s.library = argv[1];
  s.path = argc > 3 && !g_strcmp0 (argv[3], "activity") ?
      GPUPROF_CUPTI_PATH_ACTIVITY : GPUPROF_CUPTI_PATH_CALLBACK;
  if (!gpuprof_cupti_start (&s, &reason)) {
    g_printerr ("%s\n", reason);
    return 1;
  }
  gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_TRACER, TRUE);
  mod = dlopen (argv[1], RTLD_NOW);
  launch = dlsym (mod, "fake_cupti_launch");

  t0 = gpuprof_clock_monotonic_ns ();
  for (i = 0; i < n; i++) {
    gpuprof_gpu_chain_enter (1 + i % 8, i);
    launch (0, i % 2 ? "k_odd" : "k_even", 1000, 0);
    gpuprof_gpu_chain_exit ();
  }
  t1 = gpuprof_clock_monotonic_ns ();
  gpuprof_cupti_flush (TRUE);
  t2 = gpuprof_clock_monotonic_ns ();
  gpuprof_gpu_get_totals (GPUPROF_GPU_CHANNEL_TRACER, &t);
  g_print ("%s: %u ops, launch %.0f ns/op, flush+settle %.0f ns/op, "
      "records %" G_GUINT64_FORMAT ", external %" G_GUINT64_FORMAT " ns of %"
      G_GUINT64_FORMAT "\n", s.path == GPUPROF_CUPTI_PATH_CALLBACK ?
      "callback" : "activity", n, (double) (t1 - t0) / n,
      (double) (t2 - t1) / n, t.records, t.external_ns, t.total_ns);
  gpuprof_cupti_stop ();
  return t.records == n && t.external_ns == t.total_ns ? 0 : 1;
}
