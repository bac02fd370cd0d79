/* Which CUPTI callback names make GPU records: kernel and graph launches,
 * copies and memsets, driver and runtime (cuLaunchHostFunc matches too: no
 * record, one table slot). Plain C, no GLib: the minimal CUPTI client of
 * bench/ enables the same callbacks to measure what they cost. */
#ifndef GPUPROF_LAUNCH_NAMES_H
#define GPUPROF_LAUNCH_NAMES_H

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

#endif
