/* Which CUPTI callback names make GPU records: kernel and graph launches,
 * copies and memsets, driver and runtime (cuLaunchHostFunc matches too: no
 * record, one table slot). Plain C, no GLib: the minimal CUPTI client of
 * bench/ enables the same callbacks to measure what they cost. Include
 * after cupti.h. */
#ifndef GPUPROF_LAUNCH_NAMES_H
#define GPUPROF_LAUNCH_NAMES_H

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
