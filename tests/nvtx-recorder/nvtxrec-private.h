/* Internal to libgpuprof-nvtxrec: the event store shared by the NVTX tool
 * (nvtxrec.c), the checks (nvtxrec-check.c) and JSON I/O (nvtxrec-json.c). */

#ifndef __NVTXREC_PRIVATE_H__
#define __NVTXREC_PRIVATE_H__

#include "nvtxrec.h"

/* Interned copy of @s (NULL stays NULL): equal strings share one pointer,
 * so the checks compare domains by pointer. Takes the recorder lock. */
const char *nvtxrec_intern (const char *s);

/* Appends a copy of @ev; its strings must be interned. Takes the lock. */
void nvtxrec_append (const NvtxrecEvent * ev);

/* malloc'd copy of all events, so checks run without holding the lock. */
NvtxrecEvent *nvtxrec_snapshot (size_t * n);

/* vasprintf that aborts on out-of-memory. */
char *nvtxrec_strdup_printf (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2)));

#endif /* __NVTXREC_PRIVATE_H__ */
