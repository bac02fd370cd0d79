/* analyticsinfer: inference stand-in (like DeepStream's nvinfer).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-analyticsinfer
 * @title: analyticsinfer
 *
 * Runs a small detection network on the frames of each batch, in place, and
 * attaches the detections as a #AnalyticsDetectionMeta. The frames of a batch
 * go through the network batch-size frames per launch; each launch costs a
 * fixed part (a kernel per layer reading all the weights) plus a part per
 * frame (upload, preprocess, GEMM rows), so small launches waste the GPU as
 * a real engine does.
 *
 * On the GPU (CUDA kernels of our own, cudart linked statically) when there
 * is one; otherwise the same math on the CPU, so it runs anywhere. With
 * interval=N it infers one batch and skips the next N, as nvinfer does; a
 * skipped batch gets no detection meta.
 *
 * Threads, as nvinfer: the chain converts the frames of an inferred batch
 * (preprocessing on the CPU path) and queues the batch; an input thread
 * ("infer-input") launches the network on it; an output thread
 * ("infer-output") pushes the batches in order. The chain blocks while
 * max-in-flight batches are queued or not yet pushed. Serialized events
 * (segment, EOS, ...) wait until every batch before them is pushed; a
 * flush drops what is queued. On the GPU the input thread launches the
 * batch (copy to the GPU, kernels, copy of the results into the batch's
 * pinned slot, a CUDA event recorded after them) and never waits; the
 * output thread waits on the batch's event (cudaEventSynchronize), turns
 * the results into detections and pushes: the input thread launches the
 * next batch meanwhile. On the CPU the input thread runs the network and
 * decodes; the output thread only pushes.
 *
 * Input: the batches of analyticsmux (#AnalyticsBatchMeta tells where the
 * frames are), or any RGBA video, one frame per buffer.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! analyticsmux.sink_0 \
 *   videotestsrc num-buffers=100 ! analyticsmux.sink_1 \
 *   analyticsmux name=analyticsmux batch-size=2 \
 *   ! analyticsinfer batch-size=2 interval=1 precision=fp16 ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "gstanalyticsinfer.h"
#include "analytics-async.h"
#include "analytics-frames.h"
#include "analytics-net.h"
#ifdef HAVE_ANALYTICS_CUDA
#include "analytics-infer-gpu.h"
#endif

GST_DEBUG_CATEGORY_STATIC (gst_analytics_infer_debug);
#define GST_CAT_DEFAULT gst_analytics_infer_debug

#define DEFAULT_BATCH_SIZE 1
#define DEFAULT_INTERVAL 0
#define DEFAULT_PRECISION GST_ANALYTICS_INFER_FP32
#define DEFAULT_DEVICE GST_ANALYTICS_INFER_DEVICE_AUTO
#define DEFAULT_SIZE 512
#define DEFAULT_LAYERS 3
#define DEFAULT_THRESHOLD 0.6f
#define DEFAULT_MAX_IN_FLIGHT 2

enum
{
  PROP_0,
  PROP_BATCH_SIZE,
  PROP_INTERVAL,
  PROP_PRECISION,
  PROP_DEVICE,
  PROP_SIZE,
  PROP_LAYERS,
  PROP_THRESHOLD,
  PROP_ACTIVE_DEVICE,
  PROP_MAX_IN_FLIGHT,
};

/* What the chain hands the input thread with a batch. */
typedef struct
{
  gboolean infer;               /* FALSE: skipped by interval */
  guint batch_size;
  gfloat threshold;
  float *features;              /* CPU: n_frames x ANALYTICS_NET_IN */
  gint slot;                    /* GPU: the engine's slot, -1 on the CPU */
} InferJob;

struct _GstAnalyticsInfer
{
  GstAnalyticsFilter parent;

  /* object lock */
  guint batch_size;
  guint interval;
  GstAnalyticsInferPrecision precision;
  GstAnalyticsInferDevice device;
  guint size;
  guint layers;
  gfloat threshold;
  GstAnalyticsInferDevice active_device;        /* AUTO until started */

  /* streaming thread (and start/stop) only */
  AnalyticsNet *net;
#ifdef HAVE_ANALYTICS_CUDA
  AnalyticsGpuEngine *gpu;
  guint gpu_slots;              /* max-in-flight when it started */
#endif
  guint64 batches_seen;
  float *features;              /* batch_size x ANALYTICS_NET_IN */
  float *scratch;
  float *logits;                /* batch_size x ANALYTICS_NET_OUT */
  guint buffers_frames;         /* frames the three arrays above hold */

  guint max_in_flight;          /* object lock */
  AnalyticsAsync async;         /* the input and output threads */
};

G_DEFINE_TYPE (GstAnalyticsInfer, gst_analytics_infer,
    GST_TYPE_ANALYTICS_FILTER);
GST_ELEMENT_REGISTER_DEFINE (analyticsinfer, "analyticsinfer", GST_RANK_NONE,
    GST_TYPE_ANALYTICS_INFER);

#define GST_TYPE_ANALYTICS_INFER_PRECISION \
  (gst_analytics_infer_precision_get_type ())
static GType
gst_analytics_infer_precision_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_ANALYTICS_INFER_FP32, "32-bit float", "fp32"},
    {GST_ANALYTICS_INFER_FP16, "16-bit float storage, 32-bit sums", "fp16"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstAnalyticsInferPrecision", values));
  return type;
}

#define GST_TYPE_ANALYTICS_INFER_DEVICE (gst_analytics_infer_device_get_type ())
static GType
gst_analytics_infer_device_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_ANALYTICS_INFER_DEVICE_AUTO, "GPU if found, else CPU", "auto"},
    {GST_ANALYTICS_INFER_DEVICE_CPU, "CPU", "cpu"},
    {GST_ANALYTICS_INFER_DEVICE_GPU, "GPU (CUDA)", "gpu"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstAnalyticsInferDevice", values));
  return type;
}

/* Called with the object lock. Returns FALSE to fall back to the CPU. */
static gboolean
infer_open_gpu (GstAnalyticsInfer * self)
{
#ifdef HAVE_ANALYTICS_CUDA
  char err[256] = "";

  /* a slot per batch in flight: the chain blocks before one is reused */
  self->gpu = analytics_gpu_engine_new (self->net, self->max_in_flight, err,
      sizeof (err));
  self->gpu_slots = self->max_in_flight;
  if (self->gpu) {
    GST_INFO_OBJECT (self, "inference on %s",
        analytics_gpu_engine_device_name (self->gpu));
    return TRUE;
  }
  GST_INFO_OBJECT (self, "no GPU: %s", err);
#else
  GST_INFO_OBJECT (self, "built without CUDA");
#endif
  return FALSE;
}

static gboolean
gst_analytics_infer_start (GstBaseTransform * trans)
{
  GstAnalyticsInfer *self = GST_ANALYTICS_INFER (trans);
  GstAnalyticsInferDevice device;
  gboolean on_gpu = FALSE;

  GST_OBJECT_LOCK (self);
  self->net = analytics_net_new (self->size, self->layers,
      self->precision == GST_ANALYTICS_INFER_FP16);
  device = self->device;
  if (self->net && device != GST_ANALYTICS_INFER_DEVICE_CPU)
    on_gpu = infer_open_gpu (self);
  self->active_device = on_gpu ? GST_ANALYTICS_INFER_DEVICE_GPU :
      GST_ANALYTICS_INFER_DEVICE_CPU;
  GST_OBJECT_UNLOCK (self);

  if (!self->net) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT, (NULL),
        ("could not build the network"));
    return FALSE;
  }
  if (device == GST_ANALYTICS_INFER_DEVICE_GPU && !on_gpu) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("device=gpu, but no usable CUDA GPU was found"),
        ("use device=auto to fall back to the CPU"));
    return FALSE;
  }
  self->batches_seen = 0;
  analytics_async_start (&self->async);
  return TRUE;
}

static gboolean
gst_analytics_infer_stop (GstBaseTransform * trans)
{
  GstAnalyticsInfer *self = GST_ANALYTICS_INFER (trans);

  analytics_async_stop (&self->async);
#ifdef HAVE_ANALYTICS_CUDA
  g_clear_pointer (&self->gpu, analytics_gpu_engine_free);
#endif
  g_clear_pointer (&self->net, analytics_net_free);
  g_clear_pointer (&self->features, g_free);
  g_clear_pointer (&self->scratch, g_free);
  g_clear_pointer (&self->logits, g_free);
  self->buffers_frames = 0;
  GST_OBJECT_LOCK (self);
  self->active_device = GST_ANALYTICS_INFER_DEVICE_AUTO;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}


static void
infer_ensure_buffers (GstAnalyticsInfer * self, guint frames)
{
  if (frames <= self->buffers_frames)
    return;
  g_free (self->features);
  g_free (self->logits);
  g_free (self->scratch);
  self->features = g_new (float, (gsize) frames * ANALYTICS_NET_IN);
  self->logits = g_new (float, (gsize) frames * ANALYTICS_NET_OUT);
  self->scratch = g_new (float, analytics_net_scratch_floats (self->net));
  self->buffers_frames = frames;
}

/* Anchors whose best class passes the threshold become objects, with a box
 * around the anchor's cell that grows with the confidence. */
static void
infer_decode (const AnalyticsFrameLayout * layout, guint frame,
    const float *logits, gfloat threshold, GArray * objects)
{
  guint a, c;
  gint cw = layout->width / ANALYTICS_NET_ANCHOR_GRID;
  gint ch = layout->height / ANALYTICS_NET_ANCHOR_GRID;

  for (a = 0; a < ANALYTICS_NET_ANCHORS; a++) {
    const float *l = logits + a * ANALYTICS_NET_CLASSES;
    guint best = 0;
    gfloat conf;
    AnalyticsObject obj = { 0, };
    gint cx, cy;

    for (c = 1; c < ANALYTICS_NET_CLASSES; c++)
      if (l[c] > l[best])
        best = c;
    conf = 1.0f / (1.0f + expf (-l[best]));
    if (conf < threshold)
      continue;

    cx = (a % ANALYTICS_NET_ANCHOR_GRID) * cw + cw / 2;
    cy = (a / ANALYTICS_NET_ANCHOR_GRID) * ch + ch / 2;
    obj.frame = frame;
    obj.source_id = analytics_frame_layout_source (layout, frame);
    obj.class_id = best;
    obj.confidence = conf;
    obj.w = MAX (2, (gint) (cw * (0.5f + conf)));
    obj.h = MAX (2, (gint) (ch * (0.5f + conf)));
    obj.x = CLAMP (cx - obj.w / 2, 0, (gint) layout->width - obj.w);
    obj.y = CLAMP (cy - obj.h / 2, 0, (gint) layout->height - obj.h);
    g_array_append_val (objects, obj);
  }
}

/* Detections of frames [first, first + n) from their logits. */
static void
infer_decode_frames (const AnalyticsFrameLayout * layout, guint first,
    guint n, const float *logits, gfloat threshold, GArray * objects)
{
  guint i;

  for (i = 0; i < n; i++)
    infer_decode (layout, first + i, logits + i * ANALYTICS_NET_OUT,
        threshold, objects);
}

#ifdef HAVE_ANALYTICS_CUDA
/* The input thread on the GPU: launches the batch into its slot, does not
 * wait (infer_finish () does, on the output thread). */
static gboolean
infer_launch_gpu (GstAnalyticsInfer * self, const AnalyticsFrameLayout * layout,
    const guint8 * data, const InferJob * job)
{
  char err[256] = "";

  if (analytics_gpu_engine_launch (self->gpu, job->slot, data,
          layout->n_frames, job->batch_size, layout->width, layout->height,
          layout->stride, err, sizeof (err)) != 0) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL), ("CUDA: %s", err));
    return FALSE;
  }
  return TRUE;
}
#endif

static void
infer_job_free (gpointer data)
{
  InferJob *job = data;

  g_free (job->features);
  g_free (job);
}

/* The network on one batch, then its detections: the input thread. */
static gboolean
infer_work (GstBaseTransform * trans, GstBuffer * buf,
    const AnalyticsFrameLayout * layout, gpointer data)
{
  GstAnalyticsInfer *self = GST_ANALYTICS_INFER (trans);
  InferJob *job = data;
  AnalyticsDetectionMeta *meta;
  GstMapInfo map;
  guint first;
#ifdef HAVE_ANALYTICS_CUDA
  gboolean ok;
#endif

  if (!job->infer)
    return TRUE;
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL), ("cannot map a batch"));
    return FALSE;
  }
#ifdef HAVE_ANALYTICS_CUDA
  if (job->slot >= 0) {
    ok = infer_launch_gpu (self, layout, map.data, job);
    gst_buffer_unmap (buf, &map);
    return ok;
  }
#endif
  meta = analytics_buffer_get_detection_meta (buf);
  infer_ensure_buffers (self, MIN (job->batch_size, layout->n_frames));
  for (first = 0; first < layout->n_frames; first += job->batch_size) {
    guint n = MIN (job->batch_size, layout->n_frames - first);

    analytics_net_forward_cpu (self->net, job->features +
        (gsize) first * ANALYTICS_NET_IN, n, self->scratch, self->logits);
    infer_decode_frames (layout, first, n, self->logits, job->threshold,
        meta->objects);
  }
  gst_buffer_unmap (buf, &map);
  GST_LOG_OBJECT (self, "%u frames, %u objects", layout->n_frames,
      meta->objects->len);
  return TRUE;
}

/* The output thread: waits for a batch launched on the GPU, then its
 * detections (nvinfer's output thread). Nothing to do on the CPU. */
static gboolean
infer_finish (GstBaseTransform * trans, GstBuffer * buf,
    const AnalyticsFrameLayout * layout, gpointer data)
{
#ifdef HAVE_ANALYTICS_CUDA
  GstAnalyticsInfer *self = GST_ANALYTICS_INFER (trans);
  InferJob *job = data;
  AnalyticsDetectionMeta *meta;
  const float *logits;
  char err[256] = "";

  if (!job->infer || job->slot < 0)
    return TRUE;
  logits = analytics_gpu_engine_wait (self->gpu, job->slot, err,
      sizeof (err));
  if (!logits) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL), ("CUDA: %s", err));
    return FALSE;
  }
  meta = analytics_buffer_get_detection_meta (buf);
  infer_decode_frames (layout, 0, layout->n_frames, logits, job->threshold,
      meta->objects);
  GST_LOG_OBJECT (self, "%u frames, %u objects", layout->n_frames,
      meta->objects->len);
#endif
  return TRUE;
}

/* The chain: the conversion, then the batch is queued to the input thread;
 * it waits while max-in-flight batches are not yet pushed. */
static GstFlowReturn
gst_analytics_infer_process (GstAnalyticsFilter * filter, GstBuffer * buf,
    const AnalyticsFrameLayout * layout)
{
  GstAnalyticsInfer *self = GST_ANALYTICS_INFER (filter);
  InferJob *job = g_new0 (InferJob, 1);
  guint interval, max_in_flight, i;

  GST_OBJECT_LOCK (self);
  job->batch_size = self->batch_size;
  job->threshold = self->threshold;
  interval = self->interval;
  max_in_flight = self->max_in_flight;
  GST_OBJECT_UNLOCK (self);

  job->slot = -1;
#ifdef HAVE_ANALYTICS_CUDA
  /* every batch counts in flight, so batch k + max-in-flight only comes
   * once batch k, whose slot it takes, was waited on and pushed */
  if (self->gpu) {
    job->slot = (gint) (self->batches_seen % self->gpu_slots);
    /* max-in-flight raised while running: still a slot per batch */
    max_in_flight = MIN (max_in_flight, self->gpu_slots);
  }
#endif
  job->infer = self->batches_seen++ % ((guint64) interval + 1) == 0;
  if (!job->infer) {
    GST_LOG_OBJECT (self, "interval: skipping batch");
  } else {
    analytics_buffer_add_detection_meta (buf, TRUE);
#ifdef HAVE_ANALYTICS_CUDA
    if (!self->gpu)
#endif
    {
      GstMapInfo map;

      if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
        infer_job_free (job);
        return GST_FLOW_ERROR;
      }
      job->features = g_new (float, (gsize) layout->n_frames *
          ANALYTICS_NET_IN);
      for (i = 0; i < layout->n_frames; i++)
        analytics_net_preprocess_cpu (map.data +
            (gsize) i * layout->height * layout->stride, layout->width,
            layout->height, layout->stride,
            job->features + (gsize) i * ANALYTICS_NET_IN);
      gst_buffer_unmap (buf, &map);
    }
  }
  return analytics_async_queue (&self->async, buf, layout, job,
      max_in_flight);
}

static gboolean
gst_analytics_infer_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  return analytics_async_sink_event (&GST_ANALYTICS_INFER (trans)->async,
      event, GST_BASE_TRANSFORM_CLASS (gst_analytics_infer_parent_class)
      ->sink_event);
}

static void
gst_analytics_infer_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAnalyticsInfer *self = GST_ANALYTICS_INFER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BATCH_SIZE:
      self->batch_size = g_value_get_uint (value);
      break;
    case PROP_INTERVAL:
      self->interval = g_value_get_uint (value);
      break;
    case PROP_PRECISION:
      self->precision = g_value_get_enum (value);
      break;
    case PROP_DEVICE:
      self->device = g_value_get_enum (value);
      break;
    case PROP_SIZE:
      self->size = g_value_get_uint (value);
      break;
    case PROP_LAYERS:
      self->layers = g_value_get_uint (value);
      break;
    case PROP_THRESHOLD:
      self->threshold = g_value_get_float (value);
      break;
    case PROP_MAX_IN_FLIGHT:
      self->max_in_flight = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_analytics_infer_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstAnalyticsInfer *self = GST_ANALYTICS_INFER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BATCH_SIZE:
      g_value_set_uint (value, self->batch_size);
      break;
    case PROP_INTERVAL:
      g_value_set_uint (value, self->interval);
      break;
    case PROP_PRECISION:
      g_value_set_enum (value, self->precision);
      break;
    case PROP_DEVICE:
      g_value_set_enum (value, self->device);
      break;
    case PROP_SIZE:
      g_value_set_uint (value, self->size);
      break;
    case PROP_LAYERS:
      g_value_set_uint (value, self->layers);
      break;
    case PROP_THRESHOLD:
      g_value_set_float (value, self->threshold);
      break;
    case PROP_ACTIVE_DEVICE:
      g_value_set_enum (value, self->active_device);
      break;
    case PROP_MAX_IN_FLIGHT:
      g_value_set_uint (value, self->max_in_flight);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_analytics_infer_finalize (GObject * object)
{
  GstAnalyticsInfer *self = GST_ANALYTICS_INFER (object);

  analytics_async_clear (&self->async);
  G_OBJECT_CLASS (gst_analytics_infer_parent_class)->finalize (object);
}

static void
gst_analytics_infer_class_init (GstAnalyticsInferClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstAnalyticsFilterClass *filter_class = GST_ANALYTICS_FILTER_CLASS (klass);

  gobject_class->set_property = gst_analytics_infer_set_property;
  gobject_class->get_property = gst_analytics_infer_get_property;

  /**
   * GstAnalyticsInfer:batch-size:
   *
   * Frames per launch of the network: a batch of N frames takes
   * ceil(N / batch-size) launches.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_BATCH_SIZE,
      g_param_spec_uint ("batch-size", "Batch size", "Frames per launch",
          1, 1024, DEFAULT_BATCH_SIZE, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstAnalyticsInfer:interval:
   *
   * Batches skipped after each inferred batch (as nvinfer's interval).
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint ("interval", "Interval",
          "Batches to skip between inferences", 0, G_MAXINT, DEFAULT_INTERVAL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstAnalyticsInfer:precision:
   *
   * Storage precision of weights and activations.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_PRECISION,
      g_param_spec_enum ("precision", "Precision", "Network precision",
          GST_TYPE_ANALYTICS_INFER_PRECISION, DEFAULT_PRECISION,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstAnalyticsInfer:device:
   *
   * Where the network runs. auto takes the GPU when CUDA finds one.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE,
      g_param_spec_enum ("device", "Device", "Where the network runs",
          GST_TYPE_ANALYTICS_INFER_DEVICE, DEFAULT_DEVICE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstAnalyticsInfer:size:
   *
   * Units of each hidden layer: the cost of the network grows with its
   * square. Keep it small on the CPU; raise it to load a big GPU.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_SIZE,
      g_param_spec_uint ("size", "Size", "Units per hidden layer",
          16, 16384, DEFAULT_SIZE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstAnalyticsInfer:layers:
   *
   * Hidden layers; each is one kernel launch per inference launch.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_LAYERS,
      g_param_spec_uint ("layers", "Layers", "Hidden layers",
          1, ANALYTICS_NET_MAX_LAYERS - 1, DEFAULT_LAYERS, G_PARAM_READWRITE |
          G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));

  /**
   * GstAnalyticsInfer:threshold:
   *
   * Confidence an anchor needs to become a detection: lower it for more
   * objects (and more tracker and OSD work).
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_float ("threshold", "Threshold",
          "Detection confidence threshold", 0.0f, 1.0f, DEFAULT_THRESHOLD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstAnalyticsInfer:active-device:
   *
   * Where the network runs since the element started (cpu or gpu); auto
   * while stopped.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_ACTIVE_DEVICE,
      g_param_spec_enum ("active-device", "Active device",
          "Where the network runs now (auto = not started)",
          GST_TYPE_ANALYTICS_INFER_DEVICE, GST_ANALYTICS_INFER_DEVICE_AUTO,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  /**
   * GstAnalyticsInfer:max-in-flight:
   *
   * Batches queued to the input thread or not yet pushed by the output
   * thread before the chain blocks (nvinfer keeps a few in flight too).
   *
   * Since: 0.2
   */
  g_object_class_install_property (gobject_class, PROP_MAX_IN_FLIGHT,
      g_param_spec_uint ("max-in-flight", "Max in flight",
          "Batches in flight before the chain blocks", 1, 64,
          DEFAULT_MAX_IN_FLIGHT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (element_class,
      "Analytics inference", "Filter/Analyzer/Video",
      "Detects objects in batches of frames on the GPU or CPU "
      "(nvinfer stand-in)", "gpuprof project");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_analytics_infer_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_analytics_infer_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_analytics_infer_sink_event);
  gobject_class->finalize = gst_analytics_infer_finalize;
  filter_class->process = GST_DEBUG_FUNCPTR (gst_analytics_infer_process);

  GST_DEBUG_CATEGORY_INIT (gst_analytics_infer_debug, "analyticsinfer", 0,
      "gpuprof analytics inference");
  gst_type_mark_as_plugin_api (GST_TYPE_ANALYTICS_INFER_PRECISION, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_ANALYTICS_INFER_DEVICE, 0);
}

static void
gst_analytics_infer_init (GstAnalyticsInfer * self)
{
  self->batch_size = DEFAULT_BATCH_SIZE;
  self->interval = DEFAULT_INTERVAL;
  self->precision = DEFAULT_PRECISION;
  self->device = DEFAULT_DEVICE;
  self->size = DEFAULT_SIZE;
  self->layers = DEFAULT_LAYERS;
  self->threshold = DEFAULT_THRESHOLD;
  self->active_device = GST_ANALYTICS_INFER_DEVICE_AUTO;
  self->max_in_flight = DEFAULT_MAX_IN_FLIGHT;
  /* the kernel keeps 15 characters of a thread's name */
  analytics_async_init (&self->async, GST_BASE_TRANSFORM (self),
      "infer-input", "infer-output", infer_work, infer_job_free);
  analytics_async_set_finish (&self->async, infer_finish);
}
