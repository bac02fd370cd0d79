/* The CUPTI callbacks gpuprof enables: launches, copies and memsets (by
 * name), host waits on the GPU and event records (by id). Plain C, no
 * GLib: the minimal CUPTI client of bench/ enables the same callbacks to
 * measure what they cost. Include after cupti.h. */
#ifndef GPUPROF_CUPTI_IDS_H
#define GPUPROF_CUPTI_IDS_H

#include <stdint.h>
#include <string.h>

static inline int
gpuprof_launch_api_name (const char *name)
{
  static const char *const prefixes[] = {
    "cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset",
    "cudaLaunch", "cudaGraphLaunch", "cudaMemcpy", "cudaMemset",
  };
  unsigned i;

  for (i = 0; name && i < sizeof prefixes / sizeof prefixes[0]; i++)
    if (strncmp (name, prefixes[i], strlen (prefixes[i])) == 0)
      return 1;
  return 0;
}

/* a callback id in its domain */
typedef struct
{
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
} GpuprofCallbackId;

/* Calls that block the host until the GPU is done, driver and runtime (a
 * runtime call waits through its driver call: gpuprof-gpu-wait.c counts the
 * outermost). cuStreamWaitEvent is a GPU-side wait, not a host one.
 * Synchronous copies (cuMemcpyHtoD...) are left out: their time is mostly
 * the copy itself, already the element's copy_ns, and telling them from the
 * asynchronous ones would cost the launch path an exit callback. */
static const GpuprofCallbackId gpuprof_sync_ids[] = {
  {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize},
  {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2},
  {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize},
  {CUPTI_CB_DOMAIN_DRIVER_API,
      CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz},
  {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize},
  {CUPTI_CB_DOMAIN_RUNTIME_API,
      CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020},
  {CUPTI_CB_DOMAIN_RUNTIME_API,
      CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020},
  {CUPTI_CB_DOMAIN_RUNTIME_API,
      CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020},
  {CUPTI_CB_DOMAIN_RUNTIME_API,
      CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000},
  {CUPTI_CB_DOMAIN_RUNTIME_API,
      CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020},
};

/* Event records: an input thread that never waits (the output thread
 * waits on the batch's event) records one per batch after its last
 * launch, the end of the batch for the owned-thread rule (docs/gpu.md).
 * A runtime record calls its driver record: both count, once is enough. */
static const GpuprofCallbackId gpuprof_record_ids[] = {
  {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuEventRecord},
  {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz},
  {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags},
  {CUPTI_CB_DOMAIN_DRIVER_API,
      CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz},
  {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020},
  {CUPTI_CB_DOMAIN_RUNTIME_API,
      CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000},
  {CUPTI_CB_DOMAIN_RUNTIME_API,
      CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010},
  {CUPTI_CB_DOMAIN_RUNTIME_API,
      CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010},
};

typedef CUptiResult (*GpuprofCbNameFunc) (CUpti_CallbackDomain, uint32_t,
    const char **);
typedef CUptiResult (*GpuprofCbEnableFunc) (uint32_t, CUpti_SubscriberHandle,
    CUpti_CallbackDomain, CUpti_CallbackId);

/* Enables on @sub every driver and runtime callback whose name @match
 * accepts (CUPTI's names, through @get_name); returns how many */
static inline unsigned
gpuprof_enable_named_callbacks (GpuprofCbNameFunc get_name,
    GpuprofCbEnableFunc enable, CUpti_SubscriberHandle sub,
    int (*match) (const char *))
{
  static const struct
  {
    CUpti_CallbackDomain domain;
    uint32_t n;
  } domains[] = {
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE},
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE},
  };
  unsigned d, n = 0;
  uint32_t id;

  for (d = 0; d < sizeof domains / sizeof domains[0]; d++)
    for (id = 1; id < domains[d].n; id++) {
      const char *name = NULL;
      if (get_name (domains[d].domain, id, &name) == CUPTI_SUCCESS
          && match (name)
          && enable (1, sub, domains[d].domain, id) == CUPTI_SUCCESS)
        n++;
    }
  return n;
}

#endif
