/* gst-gpuprof dot: the pipeline graph of a snapshot, heat-mapped. */
#pragma once

#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

/* Graphviz DOT text: elements filled by busy share, queues by their share
 * of time full, edges labelled with buffers and rate; a legend. */
gchar *gpuprof_dot_format (const GpuprofSnapshot * snap);
/* "#rrggbb" for 0..1: pale green (idle) through yellow to red (saturated) */
void gpuprof_dot_heat_color (gdouble f, gchar out[8]);

G_END_DECLS
