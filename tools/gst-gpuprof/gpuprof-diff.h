/* gst-gpuprof: before/after comparison of two runs. */
#pragma once

#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

gdouble gpuprof_diff_throughput (const GpuprofSnapshot * snap);
gchar *gpuprof_diff_format (const GpuprofSnapshot * before,
    const GpuprofSnapshot * after);

G_END_DECLS
