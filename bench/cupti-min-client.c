/* The floor of GPU tracing, for bench/cupti-cost.sh: a minimal CUPTI client
 * loaded by the CUDA driver through CUDA_INJECTION64_PATH. It enables only
 * kernel (CONCURRENT_KERNEL), memcpy and memset activity, counts the
 * records it is handed and discards them; no callbacks, no API records, no
 * correlation. At exit it flushes and prints one line to stderr:
 *   cupti-min: records=N kernels=K copies=C memsets=M dropped=D
 * Built against the CUPTI headers, linked with libcupti.
 *
 * To find what part of gpuprof's collection costs what (bench/cupti-bisect.sh),
 * CUPTI_MIN_ADD (comma-separated) adds one of gpuprof's choices at a time:
 *   flush     a thread calling cuptiActivityFlushAll(0) every 100 ms
 *   ts        a timestamp callback (CLOCK_MONOTONIC), as gpuprof registers
 *   launch    a subscriber with the launch/copy/memset callbacks enabled
 *             (driver and runtime), the callback returning at once
 *   sync      the same for the synchronize callbacks
 *   record    the same for the event record callbacks
 *   memcpy2   CUPTI_ACTIVITY_KIND_MEMCPY2 too
 *   buf4      4 MiB buffers (gpuprof's) instead of 8 MiB */
#include <cupti.h>

#include "gpuprof-cupti-ids.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t kernels, copies, memsets, dropped;
static size_t buf_size = 8 << 20;
static volatile int flusher_stop;
static pthread_t flusher_thread;
static int flusher_on;

static void CUPTIAPI
request (uint8_t ** buffer, size_t * size, size_t * max_records)
{
  *buffer = aligned_alloc (8, buf_size);
  *size = buf_size;
  *max_records = 0;
}

static void CUPTIAPI
complete (CUcontext ctx, uint32_t stream, uint8_t * buffer, size_t size,
    size_t valid)
{
  CUpti_Activity *r = NULL;
  size_t d = 0;

  while (valid && cuptiActivityGetNextRecord (buffer, valid, &r) ==
      CUPTI_SUCCESS) {
    switch (r->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        __atomic_fetch_add (&kernels, 1, __ATOMIC_RELAXED);
        break;
      case CUPTI_ACTIVITY_KIND_MEMCPY:
      case CUPTI_ACTIVITY_KIND_MEMCPY2:
        __atomic_fetch_add (&copies, 1, __ATOMIC_RELAXED);
        break;
      case CUPTI_ACTIVITY_KIND_MEMSET:
        __atomic_fetch_add (&memsets, 1, __ATOMIC_RELAXED);
        break;
      default:
        break;
    }
  }
  if (cuptiActivityGetNumDroppedRecords (ctx, stream, &d) == CUPTI_SUCCESS)
    __atomic_fetch_add (&dropped, d, __ATOMIC_RELAXED);
  free (buffer);
}

static void
at_exit (void)
{
  flusher_stop = 1;
  if (flusher_on)
    pthread_join (flusher_thread, NULL);
  cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  fprintf (stderr, "cupti-min: records=%llu kernels=%llu copies=%llu "
      "memsets=%llu dropped=%llu\n",
      (unsigned long long) (kernels + copies + memsets),
      (unsigned long long) kernels, (unsigned long long) copies,
      (unsigned long long) memsets, (unsigned long long) dropped);
}

/* ---- CUPTI_MIN_ADD: gpuprof's choices, one at a time ---- */

static int
added (const char *what)
{
  const char *env = getenv ("CUPTI_MIN_ADD"), *p;
  size_t n = strlen (what);

  for (p = env; p && (p = strstr (p, what)); p += n)
    if ((p == env || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
      return 1;
  return 0;
}

static uint64_t CUPTIAPI
monotonic_ts (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

static void *
flusher (void *data)
{
  while (!flusher_stop) {
    usleep (100000);
    cuptiActivityFlushAll (0);
  }
  return NULL;
}

static void CUPTIAPI
empty_callback (void *userdata, CUpti_CallbackDomain domain,
    CUpti_CallbackId cbid, const void *data)
{
}

/* enables the callbacks @ids; returns how many */
static unsigned
enable_ids (CUpti_SubscriberHandle sub, const GpuprofCallbackId * ids,
    unsigned n)
{
  unsigned i, on = 0;

  for (i = 0; i < n; i++)
    on += cuptiEnableCallback (1, sub, ids[i].domain, ids[i].cbid) ==
        CUPTI_SUCCESS;
  return on;
}

/* enables the callbacks whose names @match accepts; returns how many */
static unsigned
enable_named (CUpti_SubscriberHandle sub, int (*match) (const char *))
{
  return gpuprof_enable_named_callbacks (cuptiGetCallbackName,
      cuptiEnableCallback, sub, match);
}

static void
add_gpuprof_choices (void)
{
  static CUpti_SubscriberHandle sub;

  if (added ("buf4"))
    buf_size = 4 << 20;
  if (added ("ts"))
    cuptiActivityRegisterTimestampCallback (monotonic_ts);
  if ((added ("launch") || added ("sync") || added ("record")) &&
      cuptiSubscribe (&sub, empty_callback, NULL) == CUPTI_SUCCESS) {
    if (added ("launch"))
      fprintf (stderr, "cupti-min: %u launch callbacks\n",
          enable_named (sub, gpuprof_launch_api_name));
    if (added ("sync"))
      fprintf (stderr, "cupti-min: %u sync callbacks\n",
          enable_ids (sub, gpuprof_sync_ids,
              sizeof gpuprof_sync_ids / sizeof gpuprof_sync_ids[0]));
    if (added ("record"))
      fprintf (stderr, "cupti-min: %u event record callbacks\n",
          enable_ids (sub, gpuprof_record_ids,
              sizeof gpuprof_record_ids / sizeof gpuprof_record_ids[0]));
  }
  if (added ("flush"))
    flusher_on = pthread_create (&flusher_thread, NULL, flusher, NULL) == 0;
}

/* called by the CUDA driver when it loads this library */
__attribute__ ((visibility ("default")))
int
InitializeInjection (void)
{
  /* the timestamp callback must come before any kind is enabled */
  add_gpuprof_choices ();
  if (cuptiActivityRegisterCallbacks (request, complete) != CUPTI_SUCCESS
      || cuptiActivityEnable (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) !=
      CUPTI_SUCCESS) {
    fprintf (stderr, "cupti-min: CUPTI would not start\n");
    return 0;
  }
  cuptiActivityEnable (CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityEnable (CUPTI_ACTIVITY_KIND_MEMSET);
  if (added ("memcpy2"))
    cuptiActivityEnable (CUPTI_ACTIVITY_KIND_MEMCPY2);
  atexit (at_exit);
  return 1;
}
