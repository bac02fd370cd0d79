/* gpuprof: the snapshot's links table, the pipeline's topology. */
#pragma once

#include "gpuprof-objects.h"
#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

/* One row per linked src pad of @elements (GpuprofElement*, one pipeline's),
 * from the pads' peers now: no hook cost. Not on a streaming thread. */
void gpuprof_links_fill (GpuprofSnapshot * snap, GpuprofObjects * objects,
    GPtrArray * elements);

G_END_DECLS
