/* Where the frames of a batch buffer lie: shared by analyticsinfer,
 * analyticstracker and analyticsosd. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gpuprof-analytics-meta.h"

G_BEGIN_DECLS

typedef struct
{
  guint n_frames;
  guint width;
  guint height;
  guint stride;
  const GpuprofBatchMeta *batch;        /* NULL for a plain single frame */
} GpuprofFrameLayout;

gboolean gpuprof_frame_layout_init (GpuprofFrameLayout * layout,
    GstBuffer * buffer, const GstVideoInfo * info);

guint gpuprof_frame_layout_source (const GpuprofFrameLayout * layout,
    guint frame);

G_END_DECLS
