/* gpuprof analytics examples: metas carried by the batch buffers.
 *
 * analyticsmux attaches a GpuprofBatchMeta to each batch it pushes;
 * analyticsinfer attaches a GpuprofDetectionMeta, which analyticstracker
 * fills with track ids and analyticsosd draws. The names carry the project
 * prefix so they never clash with GStreamer's own analytics library (1.24+).
 *
 * The registration functions look the types up by name first, so the code
 * can be linked twice into one process (the plugin and a test program) and
 * both copies share one registered type.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * GpuprofBatchPushReason:
 * @GPUPROF_BATCH_PUSH_FULL: batch-size frames were collected
 * @GPUPROF_BATCH_PUSH_TIMEOUT: batched-push-timeout expired since the
 *     batch's first frame
 * @GPUPROF_BATCH_PUSH_EOS: all inputs ended; the rest was pushed
 *
 * Why analyticsmux pushed a batch.
 */
typedef enum
{
  GPUPROF_BATCH_PUSH_FULL = 0,
  GPUPROF_BATCH_PUSH_TIMEOUT = 1,
  GPUPROF_BATCH_PUSH_EOS = 2,
} GpuprofBatchPushReason;

/**
 * GpuprofBatchFrame:
 * @source_id: index N of the mux sink pad sink_N the frame came from
 * @pts: the frame's PTS as the source stamped it
 * @running_time: the frame's running time on its sink pad
 * @frame_num: number of the frame on its sink pad, from 0
 *
 * One frame of a batch; frame i occupies rows [i * frame_height,
 * (i + 1) * frame_height) of the batch buffer.
 */
typedef struct
{
  guint source_id;
  GstClockTime pts;
  GstClockTime running_time;
  guint64 frame_num;
} GpuprofBatchFrame;

/**
 * GpuprofBatchMeta:
 * @meta: parent
 * @batch_num: number of the batch on the mux, from 0
 * @batch_size: the mux's batch-size when it formed the batch
 * @n_frames: frames in the batch, 1..batch_size
 * @frame_width: width of each frame in pixels
 * @frame_height: height of each frame in pixels
 * @stride: bytes per row of the batch buffer
 * @reason: why the batch was pushed
 * @wait: ns from the batch's first frame to its push (formation wait)
 * @frames: (array length=n_frames): the frames, in buffer order
 */
typedef struct
{
  GstMeta meta;

  guint64 batch_num;
  guint batch_size;
  guint n_frames;
  guint frame_width;
  guint frame_height;
  guint stride;
  GpuprofBatchPushReason reason;
  GstClockTime wait;
  GpuprofBatchFrame *frames;
} GpuprofBatchMeta;

GType gpuprof_batch_meta_api_get_type (void);
const GstMetaInfo *gpuprof_batch_meta_get_info (void);
#define GPUPROF_BATCH_META_API_TYPE (gpuprof_batch_meta_api_get_type ())

#define gpuprof_buffer_get_batch_meta(b) \
  ((GpuprofBatchMeta *) gst_buffer_get_meta ((b), GPUPROF_BATCH_META_API_TYPE))

GpuprofBatchMeta *gpuprof_buffer_add_batch_meta (GstBuffer * buffer,
    guint n_frames);

const gchar *gpuprof_batch_push_reason_name (GpuprofBatchPushReason reason);

/**
 * GpuprofObject:
 * @frame: index of the frame in the batch (row block of the buffer)
 * @source_id: the frame's source (GpuprofBatchFrame.source_id)
 * @class_id: class of the detection, 0..GPUPROF_N_CLASSES-1
 * @confidence: 0..1
 * @x: left edge in frame pixels
 * @y: top edge in frame pixels
 * @w: width in pixels
 * @h: height in pixels
 * @track_id: 0 until analyticstracker assigns a track; then unique within
 *     that tracker
 * @age: frames since the track was last matched to a detection (0 for a
 *     fresh detection; > 0 for an object the tracker carried over a frame
 *     without inference)
 */
typedef struct
{
  guint frame;
  guint source_id;
  guint class_id;
  gfloat confidence;
  gint x, y, w, h;
  guint64 track_id;
  guint age;
} GpuprofObject;

#define GPUPROF_N_CLASSES 4

/**
 * GpuprofDetectionMeta:
 * @meta: parent
 * @inferred: TRUE when analyticsinfer ran on this batch; FALSE when the
 *     batch was skipped (interval) and the objects come from the tracker
 * @objects: (element-type GpuprofObject): the objects of all frames of the
 *     batch, ordered by frame
 */
typedef struct
{
  GstMeta meta;

  gboolean inferred;
  GArray *objects;
} GpuprofDetectionMeta;

GType gpuprof_detection_meta_api_get_type (void);
const GstMetaInfo *gpuprof_detection_meta_get_info (void);
#define GPUPROF_DETECTION_META_API_TYPE (gpuprof_detection_meta_api_get_type ())

#define gpuprof_buffer_get_detection_meta(b) \
  ((GpuprofDetectionMeta *) gst_buffer_get_meta ((b), \
      GPUPROF_DETECTION_META_API_TYPE))

GpuprofDetectionMeta *gpuprof_buffer_add_detection_meta (GstBuffer * buffer,
    gboolean inferred);

G_END_DECLS
