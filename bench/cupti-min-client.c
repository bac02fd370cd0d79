/* The floor of GPU tracing, for bench/cupti-cost.sh: a minimal CUPTI client
 * loaded by the CUDA driver through CUDA_INJECTION64_PATH. It enables only
 * kernel (CONCURRENT_KERNEL), memcpy and memset activity, counts the
 * records it is handed and discards them; no callbacks, no API records, no
 * correlation. At exit it flushes and prints one line to stderr:
 *   cupti-min: records=N kernels=K copies=C memsets=M dropped=D
 * Built against the CUPTI headers, linked with libcupti. */
#include <cupti.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BUF_SIZE (8 << 20)

static uint64_t kernels, copies, memsets, dropped;

static void CUPTIAPI
request (uint8_t ** buffer, size_t * size, size_t * max_records)
{
  *buffer = aligned_alloc (8, BUF_SIZE);
  *size = BUF_SIZE;
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
  cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  fprintf (stderr, "cupti-min: records=%llu kernels=%llu copies=%llu "
      "memsets=%llu dropped=%llu\n",
      (unsigned long long) (kernels + copies + memsets),
      (unsigned long long) kernels, (unsigned long long) copies,
      (unsigned long long) memsets, (unsigned long long) dropped);
}

/* called by the CUDA driver when it loads this library */
__attribute__ ((visibility ("default")))
int
InitializeInjection (void)
{
  if (cuptiActivityRegisterCallbacks (request, complete) != CUPTI_SUCCESS
      || cuptiActivityEnable (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) !=
      CUPTI_SUCCESS) {
    fprintf (stderr, "cupti-min: CUPTI would not start\n");
    return 0;
  }
  cuptiActivityEnable (CUPTI_ACTIVITY_KIND_MEMCPY);
  cuptiActivityEnable (CUPTI_ACTIVITY_KIND_MEMSET);
  atexit (at_exit);
  return 1;
}
