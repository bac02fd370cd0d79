/* gpuprof analytics examples: metas carried by the batch buffers.
 *
 * analyticsmux attaches a AnalyticsBatchMeta to each batch it pushes;
 * analyticsinfer attaches a AnalyticsDetectionMeta, which analyticstracker
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
 * AnalyticsBatchPushReason:
 * @ANALYTICS_BATCH_PUSH_FULL: batch-size frames were collected
 * @ANALYTICS_BATCH_PUSH_TIMEOUT: batched-push-timeout expired since the
 *     batch's first frame
 * @ANALYTICS_BATCH_PUSH_EOS: all inputs ended; the rest was pushed
 *
 * Why analyticsmux pushed a batch.
 */
typedef enum
{
  ANALYTICS_BATCH_PUSH_FULL = 0,
  ANALYTICS_BATCH_PUSH_TIMEOUT = 1,
  ANALYTICS_BATCH_PUSH_EOS = 2,
} AnalyticsBatchPushReason;

/**
 * AnalyticsBatchFrame:
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
} AnalyticsBatchFrame;

/**
 * AnalyticsBatchMeta:
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
  AnalyticsBatchPushReason reason;
  GstClockTime wait;
  AnalyticsBatchFrame *frames;
} AnalyticsBatchMeta;

GType analytics_batch_meta_api_get_type (void);
const GstMetaInfo *analytics_batch_meta_get_info (void);
#define ANALYTICS_BATCH_META_API_TYPE (analytics_batch_meta_api_get_type ())

#define analytics_buffer_get_batch_meta(b) \
  ((AnalyticsBatchMeta *) gst_buffer_get_meta ((b), \
      ANALYTICS_BATCH_META_API_TYPE))

AnalyticsBatchMeta *analytics_buffer_add_batch_meta (GstBuffer * buffer,
    guint n_frames);

const gchar *analytics_batch_push_reason_name (AnalyticsBatchPushReason reason);

/**
 * AnalyticsObject:
 * @frame: index of the frame in the batch (row block of the buffer)
 * @source_id: the frame's source (AnalyticsBatchFrame.source_id)
 * @class_id: class of the detection, 0..ANALYTICS_N_CLASSES-1
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
} AnalyticsObject;

#define ANALYTICS_N_CLASSES 4

/**
 * AnalyticsDetectionMeta:
 * @meta: parent
 * @inferred: TRUE when analyticsinfer ran on this batch; FALSE when the
 *     batch was skipped (interval) and the objects come from the tracker
 * @objects: (element-type AnalyticsObject): the objects of all frames of the
 *     batch, ordered by frame
 */
typedef struct
{
  GstMeta meta;

  gboolean inferred;
  GArray *objects;
} AnalyticsDetectionMeta;

GType analytics_detection_meta_api_get_type (void);
const GstMetaInfo *analytics_detection_meta_get_info (void);
#define ANALYTICS_DETECTION_META_API_TYPE \
    (analytics_detection_meta_api_get_type ())

#define analytics_buffer_get_detection_meta(b) \
  ((AnalyticsDetectionMeta *) gst_buffer_get_meta ((b), \
      ANALYTICS_DETECTION_META_API_TYPE))

AnalyticsDetectionMeta *analytics_buffer_add_detection_meta (GstBuffer * buffer,
    gboolean inferred);

G_END_DECLS
