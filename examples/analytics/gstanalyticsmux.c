/* analyticsmux: batching mux stand-in (like DeepStream's nvstreammux).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-analyticsmux
 * @title: analyticsmux
 *
 * Collects frames from N request sink pads into batches and pushes one
 * buffer per batch: when batch-size frames are in, or when
 * batched-push-timeout microseconds have passed since the batch's first
 * frame, or when all inputs have ended. Every frame is scaled (nearest
 * neighbour, on the CPU, in the thread of its source) to width x height RGBA.
 *
 * The batch buffer is `video/x-raw, format=RGBA, width=W,
 * height=H*batch-size, batch-size=B`: the frames lie one under the other,
 * frame i in rows [i*H, (i+1)*H). A partial batch has the same size; its
 * unused rows are zero. Each batch carries a #AnalyticsBatchMeta (number,
 * frame count, push reason, formation wait, source pad and PTS per frame).
 *
 * A batch takes at most ceil(batch-size / live inputs) frames from one input,
 * so with batch-size = number of inputs each batch holds one frame of every
 * input. Seeking is not supported.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 analyticsmux name=m batch-size=4 batched-push-timeout=40000 \
 *   ! analyticsinfer ! analyticstracker ! analyticsosd ! fakesink \
 *   videotestsrc num-buffers=100 ! m.sink_0  videotestsrc num-buffers=100 ! m.sink_1 \
 *   videotestsrc num-buffers=100 ! m.sink_2  videotestsrc num-buffers=100 ! m.sink_3
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include "gstanalyticsmux.h"
#include "analytics-meta.h"

GST_DEBUG_CATEGORY_STATIC (gst_analytics_mux_debug);
#define GST_CAT_DEFAULT gst_analytics_mux_debug

#define DEFAULT_BATCH_SIZE 1
#define DEFAULT_TIMEOUT (-1)
#define DEFAULT_WIDTH 640
#define DEFAULT_HEIGHT 360
/* Frames a sink pad may hold before its source blocks (backpressure). */
#define MAX_QUEUED_PER_PAD 2

enum
{
  PROP_0,
  PROP_BATCH_SIZE,
  PROP_BATCHED_PUSH_TIMEOUT,
  PROP_WIDTH,
  PROP_HEIGHT,
};

/* A scaled frame waiting in a pad queue or in the batch being formed. */
typedef struct
{
  GstBuffer *frame;             /* RGBA width x height */
  guint source_id;
  GstClockTime pts;
  GstClockTime running_time;
  guint64 frame_num;
  gint64 arrival;               /* g_get_monotonic_time () at enqueue */
} MuxFrame;

struct _GstAnalyticsMuxPad
{
  GstPad parent;

  guint index;                  /* N of sink_N; constant */

  /* streaming thread of this pad only */
  GstVideoInfo in_info;
  gboolean have_info;
  GstVideoConverter *convert;   /* NULL: input already RGBA width x height */
  GstSegment segment;

  /* mux->lock */
  GQueue queue;                 /* MuxFrame* */
  guint in_batch;               /* frames of this pad in the forming batch */
  guint64 frames_in;
  gboolean eos;
  gboolean flushing;
};

struct _GstAnalyticsMux
{
  GstElement parent;

  GstPad *srcpad;

  /* Guards everything below except where noted; mux->cond signals any
   * change (frame queued or taken, EOS, flushing). */
  GMutex lock;
  GCond cond;
  GList *sinkpads;              /* GstAnalyticsMuxPad* (no extra ref) */
  guint next_index;
  guint batch_size;
  gint timeout_us;
  gboolean flushing;
  GstFlowReturn srcresult;
  GPtrArray *batch;             /* MuxFrame* of the forming batch */
  gint64 batch_first_arrival;
  guint rr;                     /* pad position the batch starts at */
  guint rr_next;                /* position after the last pad taken from */
  guint64 batch_num;

  /* object lock; width and height change only in NULL/READY */
  guint width;
  guint height;

  /* set in READY->PAUSED, then used without lock */
  GstVideoInfo frame_info;      /* RGBA width x height */
  GstBufferPool *frame_pool;    /* scaled frames, shared by the sink threads */

  /* src task only */
  GstBufferPool *batch_pool;
  gsize batch_pool_size;
  gboolean sent_stream_start;
  guint sent_batch_size;        /* batch-size in the caps last sent */
  GstClockTime last_pts;
  gint playing;                 /* atomic: base time valid, clock running */
};

G_DEFINE_TYPE (GstAnalyticsMuxPad, gst_analytics_mux_pad, GST_TYPE_PAD);
G_DEFINE_TYPE (GstAnalyticsMux, gst_analytics_mux, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE (analyticsmux, "analyticsmux", GST_RANK_NONE,
    GST_TYPE_ANALYTICS_MUX);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink_%u",
    GST_PAD_SINK, GST_PAD_REQUEST,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (GST_VIDEO_FORMATS_ALL)));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS ("video/x-raw, format = (string) RGBA, "
        "width = " GST_VIDEO_SIZE_RANGE ", height = " GST_VIDEO_SIZE_RANGE ", "
        "framerate = " GST_VIDEO_FPS_RANGE ", batch-size = (int) [ 1, MAX ]"));

static void
mux_frame_free (MuxFrame * f)
{
  gst_buffer_unref (f->frame);
  g_free (f);
}

/* --- sink pads ----------------------------------------------------------- */

static void
gst_analytics_mux_pad_finalize (GObject * object)
{
  GstAnalyticsMuxPad *pad = GST_ANALYTICS_MUX_PAD (object);

  g_queue_clear_full (&pad->queue, (GDestroyNotify) mux_frame_free);
  g_clear_pointer (&pad->convert, gst_video_converter_free);
  G_OBJECT_CLASS (gst_analytics_mux_pad_parent_class)->finalize (object);
}

static void
gst_analytics_mux_pad_class_init (GstAnalyticsMuxPadClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_analytics_mux_pad_finalize;
}

static void
gst_analytics_mux_pad_init (GstAnalyticsMuxPad * pad)
{
  g_queue_init (&pad->queue);
  gst_segment_init (&pad->segment, GST_FORMAT_TIME);
}

/* Called with mux->lock. */
static void
mux_pad_clear_queue (GstAnalyticsMuxPad * pad)
{
  g_queue_clear_full (&pad->queue, (GDestroyNotify) mux_frame_free);
  g_queue_init (&pad->queue);
}

static gboolean
mux_pad_setup_convert (GstAnalyticsMux * mux, GstAnalyticsMuxPad * pad,
    GstCaps * caps)
{
  GstVideoInfo info, out_info;

  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;

  g_clear_pointer (&pad->convert, gst_video_converter_free);
  pad->in_info = info;
  pad->have_info = TRUE;

  if (GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_RGBA &&
      info.width == mux->frame_info.width &&
      info.height == mux->frame_info.height)
    return TRUE;

  /* The converter scales and converts, nothing else. */
  out_info = mux->frame_info;
  out_info.fps_n = info.fps_n;
  out_info.fps_d = info.fps_d;
  GST_VIDEO_INFO_INTERLACE_MODE (&out_info) =
      GST_VIDEO_INFO_INTERLACE_MODE (&info);

  /* Nearest neighbour everywhere: a mux should scale cheaply. */
  pad->convert = gst_video_converter_new (&info, &out_info,
      gst_structure_new ("options",
          GST_VIDEO_CONVERTER_OPT_RESAMPLER_METHOD,
          GST_TYPE_VIDEO_RESAMPLER_METHOD, GST_VIDEO_RESAMPLER_METHOD_NEAREST,
          GST_VIDEO_CONVERTER_OPT_CHROMA_RESAMPLER_METHOD,
          GST_TYPE_VIDEO_RESAMPLER_METHOD, GST_VIDEO_RESAMPLER_METHOD_NEAREST,
          GST_VIDEO_CONVERTER_OPT_DITHER_METHOD,
          GST_TYPE_VIDEO_DITHER_METHOD, GST_VIDEO_DITHER_NONE,
          GST_VIDEO_CONVERTER_OPT_THREADS, G_TYPE_UINT, 1, NULL));
  return pad->convert != NULL;
}

/* Returns a new ref to a RGBA width x height frame, or NULL. */
static GstBuffer *
mux_pad_scale (GstAnalyticsMux * mux, GstAnalyticsMuxPad * pad,
    GstBuffer * inbuf)
{
  GstVideoFrame in, out;
  GstBuffer *outbuf = NULL;

  if (!pad->convert)
    return gst_buffer_ref (inbuf);

  if (gst_buffer_pool_acquire_buffer (mux->frame_pool, &outbuf,
          NULL) != GST_FLOW_OK)
    return NULL;
  if (!gst_video_frame_map (&in, &pad->in_info, inbuf, GST_MAP_READ)) {
    gst_buffer_unref (outbuf);
    return NULL;
  }
  if (!gst_video_frame_map (&out, &mux->frame_info, outbuf, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&in);
    gst_buffer_unref (outbuf);
    return NULL;
  }
  gst_video_converter_frame (pad->convert, &in, &out);
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&in);
  return outbuf;
}

static GstFlowReturn
gst_analytics_mux_sink_chain (GstPad * gpad, GstObject * parent,
    GstBuffer * inbuf)
{
  GstAnalyticsMux *mux = GST_ANALYTICS_MUX (parent);
  GstAnalyticsMuxPad *pad = GST_ANALYTICS_MUX_PAD (gpad);
  GstFlowReturn ret;
  MuxFrame *f;

  if (!pad->have_info) {
    gst_buffer_unref (inbuf);
    return GST_FLOW_NOT_NEGOTIATED;
  }

  g_mutex_lock (&mux->lock);
  ret = pad->flushing ? GST_FLOW_FLUSHING : mux->srcresult;
  g_mutex_unlock (&mux->lock);
  if (ret != GST_FLOW_OK)
    goto drop;

  /* Scale here, outside the lock: every source pays for its own frames in
   * its own thread, in parallel. */
  f = g_new0 (MuxFrame, 1);
  f->frame = mux_pad_scale (mux, pad, inbuf);
  if (!f->frame) {
    g_free (f);
    GST_ELEMENT_ERROR (mux, STREAM, FAILED, (NULL),
        ("could not scale a frame of %s", GST_PAD_NAME (pad)));
    ret = GST_FLOW_ERROR;
    goto drop;
  }
  f->source_id = pad->index;
  f->pts = GST_BUFFER_PTS (inbuf);
  f->running_time = gst_segment_to_running_time (&pad->segment,
      GST_FORMAT_TIME, f->pts);

  g_mutex_lock (&mux->lock);
  while (!pad->flushing && mux->srcresult == GST_FLOW_OK &&
      g_queue_get_length (&pad->queue) >= MAX_QUEUED_PER_PAD)
    g_cond_wait (&mux->cond, &mux->lock);
  ret = pad->flushing ? GST_FLOW_FLUSHING : mux->srcresult;
  if (ret == GST_FLOW_OK) {
    f->frame_num = pad->frames_in++;
    f->arrival = g_get_monotonic_time ();
    g_queue_push_tail (&pad->queue, f);
    g_cond_broadcast (&mux->cond);
  } else {
    mux_frame_free (f);
  }
  g_mutex_unlock (&mux->lock);

drop:
  gst_buffer_unref (inbuf);
  return ret;
}

static gboolean
gst_analytics_mux_sink_event (GstPad * gpad, GstObject * parent,
    GstEvent * event)
{
  GstAnalyticsMux *mux = GST_ANALYTICS_MUX (parent);
  GstAnalyticsMuxPad *pad = GST_ANALYTICS_MUX_PAD (gpad);
  gboolean res = TRUE;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;

      gst_event_parse_caps (event, &caps);
      res = mux_pad_setup_convert (mux, pad, caps);
      if (!res)
        GST_WARNING_OBJECT (pad, "cannot scale %" GST_PTR_FORMAT, caps);
      break;
    }
    case GST_EVENT_SEGMENT:{
      const GstSegment *segment;

      gst_event_parse_segment (event, &segment);
      if (segment->format == GST_FORMAT_TIME)
        gst_segment_copy_into (segment, &pad->segment);
      else
        GST_WARNING_OBJECT (pad, "ignoring a segment not in TIME");
      break;
    }
    case GST_EVENT_EOS:
      g_mutex_lock (&mux->lock);
      pad->eos = TRUE;
      g_cond_broadcast (&mux->cond);
      g_mutex_unlock (&mux->lock);
      break;
    case GST_EVENT_FLUSH_START:
      g_mutex_lock (&mux->lock);
      pad->flushing = TRUE;
      mux_pad_clear_queue (pad);
      g_cond_broadcast (&mux->cond);
      g_mutex_unlock (&mux->lock);
      break;
    case GST_EVENT_FLUSH_STOP:
      g_mutex_lock (&mux->lock);
      pad->flushing = FALSE;
      pad->eos = FALSE;
      gst_segment_init (&pad->segment, GST_FORMAT_TIME);
      g_mutex_unlock (&mux->lock);
      break;
    default:
      /* stream-start, tags, gaps...: the src pad sends its own stream. */
      break;
  }
  gst_event_unref (event);
  return res;
}

static gboolean
gst_analytics_mux_sink_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_ALLOCATION:
      /* Frames are scaled by us, never passed on: upstream picks its own
       * buffers; video meta lets it use padded strides. */
      gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
      return TRUE;
    default:
      return gst_pad_query_default (pad, parent, query);
  }
}

static gboolean
gst_analytics_mux_sink_activate_mode (GstPad * gpad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstAnalyticsMux *mux = GST_ANALYTICS_MUX (parent);
  GstAnalyticsMuxPad *pad = GST_ANALYTICS_MUX_PAD (gpad);

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;

  g_mutex_lock (&mux->lock);
  pad->flushing = !active;
  if (active) {
    pad->eos = FALSE;
    pad->frames_in = 0;
    pad->in_batch = 0;
  } else {
    mux_pad_clear_queue (pad);
  }
  g_cond_broadcast (&mux->cond);
  g_mutex_unlock (&mux->lock);
  return TRUE;
}

/* --- batch formation (src task) ----------------------------------------- */

/* Called with mux->lock. A pad whose queue is drained after EOS no longer
 * counts, so the others may fill its share of the batch. */
static guint
mux_pad_quota (GstAnalyticsMux * mux)
{
  guint live = 0;
  GList *l;

  for (l = mux->sinkpads; l; l = l->next) {
    GstAnalyticsMuxPad *pad = l->data;

    if (!pad->eos || !g_queue_is_empty (&pad->queue))
      live++;
  }
  return live ? (mux->batch_size + live - 1) / live : mux->batch_size;
}

/* Called with mux->lock. Moves queued frames into the batch, one per pad and
 * round, starting at the pad after the last one the previous batch took
 * from, so that with batch-size < inputs the inputs take turns. */
static void
mux_take_frames (GstAnalyticsMux * mux)
{
  guint n_pads = g_list_length (mux->sinkpads);
  gboolean progress = TRUE, took = FALSE;

  while (n_pads && progress && mux->batch->len < mux->batch_size) {
    guint quota = mux_pad_quota (mux), i;

    progress = FALSE;
    for (i = 0; i < n_pads && mux->batch->len < mux->batch_size; i++) {
      GstAnalyticsMuxPad *pad =
          g_list_nth_data (mux->sinkpads, (mux->rr + i) % n_pads);
      MuxFrame *f;

      if (pad->in_batch >= quota || g_queue_is_empty (&pad->queue))
        continue;
      f = g_queue_pop_head (&pad->queue);
      if (mux->batch->len == 0)
        mux->batch_first_arrival = f->arrival;
      g_ptr_array_add (mux->batch, f);
      pad->in_batch++;
      mux->rr_next = (mux->rr + i + 1) % n_pads;
      progress = took = TRUE;
    }
  }
  if (took)
    g_cond_broadcast (&mux->cond);
}

/* Called with mux->lock. */
static gboolean
mux_all_eos (GstAnalyticsMux * mux)
{
  GList *l;

  if (!mux->sinkpads)
    return FALSE;
  for (l = mux->sinkpads; l; l = l->next) {
    GstAnalyticsMuxPad *pad = l->data;

    if (!pad->eos || !g_queue_is_empty (&pad->queue))
      return FALSE;
  }
  return TRUE;
}

static GstCaps *
mux_src_caps (guint width, guint height, guint batch_size)
{
  return gst_caps_new_simple ("video/x-raw",
      "format", G_TYPE_STRING, "RGBA",
      "width", G_TYPE_INT, width,
      "height", G_TYPE_INT, height * batch_size,
      "framerate", GST_TYPE_FRACTION, 0, 1,
      "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1,
      "batch-size", G_TYPE_INT, batch_size, NULL);
}

static gboolean
mux_send_caps (GstAnalyticsMux * mux, guint batch_size)
{
  GstCaps *caps = mux_src_caps (mux->frame_info.width,
      mux->frame_info.height, batch_size);
  GstStructure *config;
  gsize size = (gsize) GST_VIDEO_INFO_PLANE_STRIDE (&mux->frame_info, 0) *
      mux->frame_info.height * batch_size;
  gboolean res;

  if (!mux->sent_stream_start) {
    gchar *id = g_strdup_printf ("analyticsmux-%p", mux);
    GstSegment segment;

    gst_pad_push_event (mux->srcpad, gst_event_new_stream_start (id));
    g_free (id);
    mux->sent_stream_start = TRUE;
    res = gst_pad_push_event (mux->srcpad, gst_event_new_caps (caps));
    gst_segment_init (&segment, GST_FORMAT_TIME);
    gst_pad_push_event (mux->srcpad, gst_event_new_segment (&segment));
  } else {
    res = gst_pad_push_event (mux->srcpad, gst_event_new_caps (caps));
  }
  mux->sent_batch_size = batch_size;

  if (mux->batch_pool_size != size) {
    if (mux->batch_pool) {
      gst_buffer_pool_set_active (mux->batch_pool, FALSE);
      gst_object_unref (mux->batch_pool);
    }
    mux->batch_pool = gst_buffer_pool_new ();
    config = gst_buffer_pool_get_config (mux->batch_pool);
    gst_buffer_pool_config_set_params (config, caps, size, 0, 0);
    gst_buffer_pool_set_config (mux->batch_pool, config);
    gst_buffer_pool_set_active (mux->batch_pool, TRUE);
    mux->batch_pool_size = size;
  }
  gst_caps_unref (caps);
  return res;
}

/* Copies the frames into one buffer laid out as the caps say. */
static GstBuffer *
mux_assemble (GstAnalyticsMux * mux, GPtrArray * frames, guint batch_size,
    AnalyticsBatchPushReason reason, guint64 batch_num, GstClockTime wait)
{
  GstBuffer *outbuf = NULL;
  AnalyticsBatchMeta *meta;
  GstMapInfo map;
  guint stride = GST_VIDEO_INFO_PLANE_STRIDE (&mux->frame_info, 0);
  guint row_bytes = mux->frame_info.width * 4;
  guint fh = mux->frame_info.height;
  GstClockTime pts;
  guint i, y;

  if (gst_buffer_pool_acquire_buffer (mux->batch_pool, &outbuf,
          NULL) != GST_FLOW_OK)
    return NULL;

  gst_buffer_map (outbuf, &map, GST_MAP_WRITE);
  meta = analytics_buffer_add_batch_meta (outbuf, frames->len);
  for (i = 0; i < frames->len; i++) {
    MuxFrame *f = g_ptr_array_index (frames, i);
    GstVideoFrame vf;

    if (gst_video_frame_map (&vf, &mux->frame_info, f->frame, GST_MAP_READ)) {
      const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (&vf, 0);
      guint src_stride = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0);
      guint8 *dst = map.data + (gsize) i * fh * stride;

      for (y = 0; y < fh; y++)
        memcpy (dst + (gsize) y * stride, src + (gsize) y * src_stride,
            row_bytes);
      gst_video_frame_unmap (&vf);
    }
    meta->frames[i].source_id = f->source_id;
    meta->frames[i].pts = f->pts;
    meta->frames[i].running_time = f->running_time;
    meta->frames[i].frame_num = f->frame_num;
  }
  /* Unused rows of a partial batch: zero, not a stale frame of the pool. */
  if (frames->len < batch_size)
    memset (map.data + (gsize) frames->len * fh * stride, 0,
        (gsize) (batch_size - frames->len) * fh * stride);
  gst_buffer_unmap (outbuf, &map);

  meta->batch_num = batch_num;
  meta->batch_size = batch_size;
  meta->frame_width = mux->frame_info.width;
  meta->frame_height = fh;
  meta->stride = stride;
  meta->reason = reason;
  meta->wait = wait;

  /* Batch time, as the new nvstreammux: the running time of the clock now
   * (wall clock since play start), the frames' own times staying in the
   * meta; while not playing (preroll, paused: no base time to count from)
   * where the clock stopped, 0 before play start. Kept monotonic for
   * synchronising sinks. */
  pts = GST_CLOCK_TIME_IS_VALID (mux->last_pts) ? mux->last_pts : 0;
  if (g_atomic_int_get (&mux->playing)) {
    GstClock *clock = gst_element_get_clock (GST_ELEMENT (mux));

    if (clock) {
      GstClockTime now = gst_clock_get_time (clock);
      GstClockTime base = gst_element_get_base_time (GST_ELEMENT (mux));

      if (GST_CLOCK_TIME_IS_VALID (now) && GST_CLOCK_TIME_IS_VALID (base))
        pts = now > base ? now - base : 0;
      gst_object_unref (clock);
    }
  }
  if (GST_CLOCK_TIME_IS_VALID (pts) && GST_CLOCK_TIME_IS_VALID (mux->last_pts)
      && pts < mux->last_pts)
    pts = mux->last_pts;
  if (GST_CLOCK_TIME_IS_VALID (pts))
    mux->last_pts = pts;
  GST_BUFFER_PTS (outbuf) = pts;
  return outbuf;
}

static void
gst_analytics_mux_loop (GstAnalyticsMux * mux)
{
  AnalyticsBatchPushReason reason;
  GPtrArray *frames;
  GstBuffer *outbuf;
  GstFlowReturn ret;
  GstClockTime wait;
  guint64 batch_num;
  guint batch_size;
  GList *l;

  g_mutex_lock (&mux->lock);
  for (;;) {
    if (mux->flushing) {
      ret = GST_FLOW_FLUSHING;
      goto paused_locked;
    }
    mux_take_frames (mux);
    if (mux->batch->len >= mux->batch_size) {
      reason = ANALYTICS_BATCH_PUSH_FULL;
      break;
    }
    if (mux_all_eos (mux)) {
      if (mux->batch->len > 0) {
        reason = ANALYTICS_BATCH_PUSH_EOS;
        break;
      }
      goto eos_locked;
    }
    if (mux->batch->len > 0 && mux->timeout_us >= 0) {
      gint64 deadline = mux->batch_first_arrival + mux->timeout_us;

      if (g_get_monotonic_time () >= deadline) {
        reason = ANALYTICS_BATCH_PUSH_TIMEOUT;
        break;
      }
      g_cond_wait_until (&mux->cond, &mux->lock, deadline);
    } else {
      g_cond_wait (&mux->cond, &mux->lock);
    }
  }

  /* Hand the batch over and start the next one at the next pad. */
  frames = mux->batch;
  mux->batch = g_ptr_array_new_with_free_func ((GDestroyNotify) mux_frame_free);
  wait = (g_get_monotonic_time () - mux->batch_first_arrival) * GST_USECOND;
  for (l = mux->sinkpads; l; l = l->next)
    ((GstAnalyticsMuxPad *) l->data)->in_batch = 0;
  mux->rr = mux->rr_next;
  batch_num = mux->batch_num++;
  batch_size = MAX (mux->batch_size, frames->len);
  g_mutex_unlock (&mux->lock);

  /* batch-size may change while playing: the caps follow it. */
  if (batch_size != mux->sent_batch_size && !mux_send_caps (mux, batch_size)) {
    g_ptr_array_unref (frames);
    ret = GST_FLOW_NOT_NEGOTIATED;
    goto paused;
  }
  outbuf = mux_assemble (mux, frames, batch_size, reason, batch_num, wait);
  GST_LOG_OBJECT (mux, "batch %" G_GUINT64_FORMAT ": %u frames (%s)",
      batch_num, frames->len, analytics_batch_push_reason_name (reason));
  g_ptr_array_unref (frames);
  if (!outbuf) {
    ret = GST_FLOW_FLUSHING;
    goto paused;
  }

  ret = gst_pad_push (mux->srcpad, outbuf);
  if (ret != GST_FLOW_OK)
    goto paused;
  return;

eos_locked:
  g_mutex_unlock (&mux->lock);
  GST_DEBUG_OBJECT (mux, "all inputs ended after %" G_GUINT64_FORMAT
      " batches", mux->batch_num);
  if (!mux->sent_stream_start)
    mux_send_caps (mux, mux->batch_size);
  gst_pad_push_event (mux->srcpad, gst_event_new_eos ());
  ret = GST_FLOW_EOS;
  goto paused;

paused_locked:
  g_mutex_unlock (&mux->lock);
paused:
  GST_DEBUG_OBJECT (mux, "pausing task: %s", gst_flow_get_name (ret));
  g_mutex_lock (&mux->lock);
  if (mux->srcresult == GST_FLOW_OK)
    mux->srcresult = ret;
  g_cond_broadcast (&mux->cond);
  g_mutex_unlock (&mux->lock);
  gst_pad_pause_task (mux->srcpad);
  if (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS) {
    GST_ELEMENT_FLOW_ERROR (mux, ret);
    gst_pad_push_event (mux->srcpad, gst_event_new_eos ());
  }
}

/* --- src pad ------------------------------------------------------------- */

static gboolean
gst_analytics_mux_src_activate_mode (GstPad * pad, GstObject * parent,
    GstPadMode mode, gboolean active)
{
  GstAnalyticsMux *mux = GST_ANALYTICS_MUX (parent);

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;

  g_mutex_lock (&mux->lock);
  mux->flushing = !active;
  mux->srcresult = active ? GST_FLOW_OK : GST_FLOW_FLUSHING;
  g_cond_broadcast (&mux->cond);
  g_mutex_unlock (&mux->lock);

  if (active)
    return gst_pad_start_task (pad, (GstTaskFunction) gst_analytics_mux_loop,
        mux, NULL);
  return gst_pad_stop_task (pad);
}

static gboolean
gst_analytics_mux_src_query (GstPad * pad, GstObject * parent,
    GstQuery * query)
{
  GstAnalyticsMux *mux = GST_ANALYTICS_MUX (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:{
      GstCaps *filter, *caps;
      guint batch_size, width, height;

      g_mutex_lock (&mux->lock);
      batch_size = mux->batch_size;
      g_mutex_unlock (&mux->lock);
      GST_OBJECT_LOCK (mux);
      width = mux->width;
      height = mux->height;
      GST_OBJECT_UNLOCK (mux);
      caps = mux_src_caps (width, height, batch_size);
      gst_query_parse_caps (query, &filter);
      if (filter) {
        GstCaps *tmp = gst_caps_intersect_full (filter, caps,
            GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref (caps);
        caps = tmp;
      }
      gst_query_set_caps_result (query, caps);
      gst_caps_unref (caps);
      return TRUE;
    }
    case GST_QUERY_LATENCY:{
      GstClockTime min, max;
      gboolean live;
      gint timeout_us;

      /* The default handler folds the latency of all inputs; a batch may
       * then wait up to the timeout for its last frame. */
      if (!gst_pad_query_default (pad, parent, query))
        return FALSE;
      gst_query_parse_latency (query, &live, &min, &max);
      g_mutex_lock (&mux->lock);
      timeout_us = mux->timeout_us;
      g_mutex_unlock (&mux->lock);
      if (timeout_us > 0) {
        min += timeout_us * GST_USECOND;
        if (GST_CLOCK_TIME_IS_VALID (max))
          max += timeout_us * GST_USECOND;
      }
      gst_query_set_latency (query, live, min, max);
      return TRUE;
    }
    default:
      return gst_pad_query_default (pad, parent, query);
  }
}

static gboolean
gst_analytics_mux_src_event (GstPad * pad, GstObject * parent,
    GstEvent * event)
{
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_SEEK:
      GST_WARNING_OBJECT (parent, "seeking is not supported");
      gst_event_unref (event);
      return FALSE;
    default:
      return gst_pad_event_default (pad, parent, event);
  }
}

/* --- element ------------------------------------------------------------- */

static GstPad *
gst_analytics_mux_request_new_pad (GstElement * element,
    GstPadTemplate * templ, const gchar * req_name, const GstCaps * caps)
{
  GstAnalyticsMux *mux = GST_ANALYTICS_MUX (element);
  GstAnalyticsMuxPad *pad;
  guint index;
  gchar *name;
  GList *l;

  g_mutex_lock (&mux->lock);
  if (req_name && sscanf (req_name, "sink_%u", &index) == 1) {
    for (l = mux->sinkpads; l; l = l->next) {
      if (((GstAnalyticsMuxPad *) l->data)->index == index) {
        g_mutex_unlock (&mux->lock);
        GST_WARNING_OBJECT (mux, "pad %s exists already", req_name);
        return NULL;
      }
    }
  } else {
    index = mux->next_index;
  }
  mux->next_index = MAX (mux->next_index, index + 1);
  g_mutex_unlock (&mux->lock);

  name = g_strdup_printf ("sink_%u", index);
  pad = g_object_new (GST_TYPE_ANALYTICS_MUX_PAD, "name", name,
      "direction", GST_PAD_SINK, "template", templ, NULL);
  g_free (name);
  pad->index = index;

  gst_pad_set_chain_function (GST_PAD (pad),
      GST_DEBUG_FUNCPTR (gst_analytics_mux_sink_chain));
  gst_pad_set_event_function (GST_PAD (pad),
      GST_DEBUG_FUNCPTR (gst_analytics_mux_sink_event));
  gst_pad_set_query_function (GST_PAD (pad),
      GST_DEBUG_FUNCPTR (gst_analytics_mux_sink_query));
  gst_pad_set_activatemode_function (GST_PAD (pad),
      GST_DEBUG_FUNCPTR (gst_analytics_mux_sink_activate_mode));

  g_mutex_lock (&mux->lock);
  mux->sinkpads = g_list_append (mux->sinkpads, pad);
  g_mutex_unlock (&mux->lock);

  /* Activates the pad when the mux is running. */
  gst_element_add_pad (element, GST_PAD (pad));
  return GST_PAD (pad);
}

static void
gst_analytics_mux_release_pad (GstElement * element, GstPad * gpad)
{
  GstAnalyticsMux *mux = GST_ANALYTICS_MUX (element);
  GstAnalyticsMuxPad *pad = GST_ANALYTICS_MUX_PAD (gpad);

  g_mutex_lock (&mux->lock);
  pad->flushing = TRUE;
  mux->sinkpads = g_list_remove (mux->sinkpads, pad);
  mux_pad_clear_queue (pad);
  mux->rr = mux->rr_next = 0;
  g_cond_broadcast (&mux->cond);
  g_mutex_unlock (&mux->lock);

  gst_pad_set_active (gpad, FALSE);
  gst_element_remove_pad (element, gpad);
}

static gboolean
mux_start (GstAnalyticsMux * mux)
{
  GstStructure *config;
  GstCaps *caps;

  GST_OBJECT_LOCK (mux);
  gst_video_info_set_format (&mux->frame_info, GST_VIDEO_FORMAT_RGBA,
      mux->width, mux->height);
  GST_OBJECT_UNLOCK (mux);

  caps = gst_video_info_to_caps (&mux->frame_info);
  mux->frame_pool = gst_buffer_pool_new ();
  config = gst_buffer_pool_get_config (mux->frame_pool);
  gst_buffer_pool_config_set_params (config, caps,
      GST_VIDEO_INFO_SIZE (&mux->frame_info), 0, 0);
  gst_buffer_pool_set_config (mux->frame_pool, config);
  gst_caps_unref (caps);

  g_mutex_lock (&mux->lock);
  g_ptr_array_set_size (mux->batch, 0);
  mux->batch_num = 0;
  mux->rr = mux->rr_next = 0;
  g_mutex_unlock (&mux->lock);
  mux->sent_stream_start = FALSE;
  mux->sent_batch_size = 0;
  mux->last_pts = GST_CLOCK_TIME_NONE;
  return gst_buffer_pool_set_active (mux->frame_pool, TRUE);
}

static void
mux_stop (GstAnalyticsMux * mux)
{
  g_mutex_lock (&mux->lock);
  g_ptr_array_set_size (mux->batch, 0);
  g_mutex_unlock (&mux->lock);
  if (mux->frame_pool) {
    gst_buffer_pool_set_active (mux->frame_pool, FALSE);
    gst_clear_object (&mux->frame_pool);
  }
  if (mux->batch_pool) {
    gst_buffer_pool_set_active (mux->batch_pool, FALSE);
    gst_clear_object (&mux->batch_pool);
  }
  mux->batch_pool_size = 0;
}

static GstStateChangeReturn
gst_analytics_mux_change_state (GstElement * element,
    GstStateChange transition)
{
  GstAnalyticsMux *mux = GST_ANALYTICS_MUX (element);
  GstStateChangeReturn ret;

  switch (transition) {
    case GST_STATE_CHANGE_READY_TO_PAUSED:
      if (!mux_start (mux))
        return GST_STATE_CHANGE_FAILURE;
      break;
    case GST_STATE_CHANGE_PAUSED_TO_PLAYING:
      /* the bin set our base time before this */
      g_atomic_int_set (&mux->playing, 1);
      break;
    case GST_STATE_CHANGE_PLAYING_TO_PAUSED:
      g_atomic_int_set (&mux->playing, 0);
      break;
    case GST_STATE_CHANGE_PAUSED_TO_READY:
      /* Unblock the task and the sink threads before pads deactivate. */
      g_mutex_lock (&mux->lock);
      mux->flushing = TRUE;
      mux->srcresult = GST_FLOW_FLUSHING;
      g_cond_broadcast (&mux->cond);
      g_mutex_unlock (&mux->lock);
      break;
    default:
      break;
  }

  ret = GST_ELEMENT_CLASS (gst_analytics_mux_parent_class)->change_state
      (element, transition);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    mux_stop (mux);
  return ret;
}

static void
gst_analytics_mux_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAnalyticsMux *mux = GST_ANALYTICS_MUX (object);

  switch (prop_id) {
    case PROP_BATCH_SIZE:
      g_mutex_lock (&mux->lock);
      mux->batch_size = g_value_get_uint (value);
      g_cond_broadcast (&mux->cond);
      g_mutex_unlock (&mux->lock);
      break;
    case PROP_BATCHED_PUSH_TIMEOUT:
      g_mutex_lock (&mux->lock);
      mux->timeout_us = g_value_get_int (value);
      g_cond_broadcast (&mux->cond);
      g_mutex_unlock (&mux->lock);
      break;
    case PROP_WIDTH:
      GST_OBJECT_LOCK (mux);
      mux->width = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (mux);
      break;
    case PROP_HEIGHT:
      GST_OBJECT_LOCK (mux);
      mux->height = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (mux);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_analytics_mux_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstAnalyticsMux *mux = GST_ANALYTICS_MUX (object);

  switch (prop_id) {
    case PROP_BATCH_SIZE:
      g_mutex_lock (&mux->lock);
      g_value_set_uint (value, mux->batch_size);
      g_mutex_unlock (&mux->lock);
      break;
    case PROP_BATCHED_PUSH_TIMEOUT:
      g_mutex_lock (&mux->lock);
      g_value_set_int (value, mux->timeout_us);
      g_mutex_unlock (&mux->lock);
      break;
    case PROP_WIDTH:
      GST_OBJECT_LOCK (mux);
      g_value_set_uint (value, mux->width);
      GST_OBJECT_UNLOCK (mux);
      break;
    case PROP_HEIGHT:
      GST_OBJECT_LOCK (mux);
      g_value_set_uint (value, mux->height);
      GST_OBJECT_UNLOCK (mux);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_analytics_mux_finalize (GObject * object)
{
  GstAnalyticsMux *mux = GST_ANALYTICS_MUX (object);

  g_ptr_array_unref (mux->batch);
  g_list_free (mux->sinkpads);
  g_mutex_clear (&mux->lock);
  g_cond_clear (&mux->cond);
  G_OBJECT_CLASS (gst_analytics_mux_parent_class)->finalize (object);
}

static void
gst_analytics_mux_class_init (GstAnalyticsMuxClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_analytics_mux_set_property;
  gobject_class->get_property = gst_analytics_mux_get_property;
  gobject_class->finalize = gst_analytics_mux_finalize;

  /**
   * GstAnalyticsMux:batch-size:
   *
   * Frames per batch. Changing it while playing takes effect at the next
   * batch and renegotiates the caps.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_BATCH_SIZE,
      g_param_spec_uint ("batch-size", "Batch size",
          "Frames per batch (set it to the number of inputs)", 1, 1024,
          DEFAULT_BATCH_SIZE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstAnalyticsMux:batched-push-timeout:
   *
   * Microseconds after the first frame of a batch after which the batch is
   * pushed even when it is not full; -1 waits for a full batch. Wall-clock
   * time, for live and non-live inputs alike.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_BATCHED_PUSH_TIMEOUT,
      g_param_spec_int ("batched-push-timeout", "Batched push timeout",
          "Microseconds after a batch's first frame to push it unfilled "
          "(-1 = wait for a full batch)", -1, G_MAXINT, DEFAULT_TIMEOUT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstAnalyticsMux:width:
   *
   * Width every frame is scaled to.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_WIDTH,
      g_param_spec_uint ("width", "Width", "Width of the frames of a batch",
          16, 8192, DEFAULT_WIDTH, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstAnalyticsMux:height:
   *
   * Height every frame is scaled to.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_HEIGHT,
      g_param_spec_uint ("height", "Height", "Height of the frames of a batch",
          16, 8192, DEFAULT_HEIGHT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  element_class->request_new_pad =
      GST_DEBUG_FUNCPTR (gst_analytics_mux_request_new_pad);
  element_class->release_pad = GST_DEBUG_FUNCPTR (gst_analytics_mux_release_pad);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_analytics_mux_change_state);

  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &sink_template, GST_TYPE_ANALYTICS_MUX_PAD);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Analytics batching mux", "Video/Muxer",
      "Batches frames of N streams into one buffer (nvstreammux stand-in)",
      "gpuprof project");

  GST_DEBUG_CATEGORY_INIT (gst_analytics_mux_debug, "analyticsmux", 0,
      "gpuprof analytics batching mux");
  gst_type_mark_as_plugin_api (GST_TYPE_ANALYTICS_MUX_PAD, 0);
}

static void
gst_analytics_mux_init (GstAnalyticsMux * mux)
{
  g_mutex_init (&mux->lock);
  g_cond_init (&mux->cond);
  mux->batch = g_ptr_array_new_with_free_func ((GDestroyNotify) mux_frame_free);
  mux->batch_size = DEFAULT_BATCH_SIZE;
  mux->timeout_us = DEFAULT_TIMEOUT;
  mux->width = DEFAULT_WIDTH;
  mux->height = DEFAULT_HEIGHT;
  mux->srcresult = GST_FLOW_FLUSHING;
  mux->flushing = TRUE;
  mux->last_pts = GST_CLOCK_TIME_NONE;

  mux->srcpad = gst_pad_new_from_static_template (&src_template, "src");
  gst_pad_set_activatemode_function (mux->srcpad,
      GST_DEBUG_FUNCPTR (gst_analytics_mux_src_activate_mode));
  gst_pad_set_query_function (mux->srcpad,
      GST_DEBUG_FUNCPTR (gst_analytics_mux_src_query));
  gst_pad_set_event_function (mux->srcpad,
      GST_DEBUG_FUNCPTR (gst_analytics_mux_src_event));
  gst_element_add_pad (GST_ELEMENT (mux), mux->srcpad);
}
