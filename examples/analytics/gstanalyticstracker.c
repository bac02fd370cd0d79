/* analyticstracker: object tracker stand-in (like DeepStream's nvtracker).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-analyticstracker
 * @title: analyticstracker
 *
 * Gives the detections of analyticsinfer track ids, per source: each frame's
 * detections are matched greedily to the source's tracks by IoU (same class)
 * and, with appearance=true, by the similarity of a luma histogram computed
 * over every box. The work is on the CPU and grows with the number of
 * detections (histograms: box area per detection; matching: detections x
 * tracks).
 *
 * It reads and updates the #AnalyticsDetectionMeta in place: track_id of every
 * matched or new object. On a batch that analyticsinfer skipped (interval),
 * it adds a meta with inferred=FALSE holding the tracks seen at the last
 * inference, their age counting the frames since.
 *
 * Threads, as nvtracker's: the chain queues the batch; a processing thread
 * ("tracker-proc") tracks it; an output thread ("tracker-output") pushes
 * the batches in order. The chain blocks while max-in-flight batches are
 * queued or not yet pushed (see analytics-async.h).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! analyticsmux.sink_0 \
 *   analyticsmux name=analyticsmux ! analyticsinfer interval=2 \
 *   ! analyticstracker max-age=10 ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstanalyticstracker.h"
#include "analytics-async.h"
#include "analytics-frames.h"

GST_DEBUG_CATEGORY_STATIC (gst_analytics_tracker_debug);
#define GST_CAT_DEFAULT gst_analytics_tracker_debug

#define DEFAULT_MAX_AGE 30
#define DEFAULT_IOU_THRESHOLD 0.3f
#define DEFAULT_APPEARANCE TRUE
#define HIST_BINS 16

enum
{
  PROP_0,
  PROP_MAX_AGE,
  PROP_IOU_THRESHOLD,
  PROP_APPEARANCE,
  PROP_MAX_IN_FLIGHT,
};

typedef struct
{
  guint64 id;
  guint class_id;
  gfloat confidence;
  gint x, y, w, h;
  gfloat hist[HIST_BINS];
  guint age;                    /* frames since the last match */
  gboolean visible;             /* matched at the last inference */
} Track;

typedef struct
{
  gfloat score;
  guint track;
  guint det;
} Candidate;

struct _GstAnalyticsTracker
{
  GstAnalyticsFilter parent;

  /* object lock */
  guint max_age;
  gfloat iou_threshold;
  gboolean appearance;

  guint max_in_flight;          /* object lock */
  AnalyticsAsync async;         /* the processing and output threads */

  /* processing thread only */
  GHashTable *sources;          /* source id -> GArray of Track */
  guint64 next_id;
  GArray *candidates;           /* scratch */
  GArray *hists;                /* scratch: HIST_BINS floats per detection */
};

G_DEFINE_TYPE (GstAnalyticsTracker, gst_analytics_tracker,
    GST_TYPE_ANALYTICS_FILTER);
GST_ELEMENT_REGISTER_DEFINE (analyticstracker, "analyticstracker",
    GST_RANK_NONE, GST_TYPE_ANALYTICS_TRACKER);

static gfloat
box_iou (gint ax, gint ay, gint aw, gint ah, gint bx, gint by, gint bw,
    gint bh)
{
  gint ix = MAX (0, MIN (ax + aw, bx + bw) - MAX (ax, bx));
  gint iy = MAX (0, MIN (ay + ah, by + bh) - MAX (ay, by));
  gfloat inter = (gfloat) ix * iy;
  gfloat uni = (gfloat) aw * ah + (gfloat) bw * bh - inter;

  return uni > 0.0f ? inter / uni : 0.0f;
}

/* Normalised luma histogram of a box: the appearance a real tracker would
 * take from a re-id network, at a cost proportional to the box area. */
static void
box_histogram (const AnalyticsFrameLayout * layout, const guint8 * frame,
    const AnalyticsObject * o, gfloat * hist)
{
  guint counts[HIST_BINS] = { 0, };
  gint x0 = CLAMP (o->x, 0, (gint) layout->width);
  gint x1 = CLAMP (o->x + o->w, x0, (gint) layout->width);
  gint y0 = CLAMP (o->y, 0, (gint) layout->height);
  gint y1 = CLAMP (o->y + o->h, y0, (gint) layout->height);
  gfloat n = (gfloat) MAX (1, (x1 - x0) * (y1 - y0));
  gint x, y, b;

  for (y = y0; y < y1; y++) {
    const guint8 *p = frame + (gsize) y * layout->stride + (gsize) x0 * 4;

    for (x = x0; x < x1; x++, p += 4)
      counts[(p[0] + 2 * p[1] + p[2]) >> 6]++;
  }
  for (b = 0; b < HIST_BINS; b++)
    hist[b] = counts[b] / n;
}

static gfloat
hist_similarity (const gfloat * a, const gfloat * b)
{
  gfloat s = 0.0f;
  gint i;

  for (i = 0; i < HIST_BINS; i++)
    s += MIN (a[i], b[i]);
  return s;
}

static GArray *
tracker_tracks (GstAnalyticsTracker * self, guint source_id)
{
  GArray *tracks = g_hash_table_lookup (self->sources,
      GUINT_TO_POINTER (source_id));

  if (!tracks) {
    tracks = g_array_new (FALSE, TRUE, sizeof (Track));
    g_hash_table_insert (self->sources, GUINT_TO_POINTER (source_id), tracks);
  }
  return tracks;
}

static gint
candidate_compare (gconstpointer a, gconstpointer b)
{
  gfloat sa = ((const Candidate *) a)->score;
  gfloat sb = ((const Candidate *) b)->score;

  return sa < sb ? 1 : (sa > sb ? -1 : 0);
}

static void
track_update (Track * t, const AnalyticsObject * o, const gfloat * hist)
{
  gint b;

  t->class_id = o->class_id;
  t->confidence = o->confidence;
  t->x = o->x;
  t->y = o->y;
  t->w = o->w;
  t->h = o->h;
  if (hist)
    for (b = 0; b < HIST_BINS; b++)
      t->hist[b] = 0.5f * (t->hist[b] + hist[b]);
  t->age = 0;
  t->visible = TRUE;
}

/* Matches the detections objs[0..n) of one frame to the source's tracks. */
static void
tracker_match_frame (GstAnalyticsTracker * self, GArray * tracks,
    AnalyticsObject * objs, guint n, const AnalyticsFrameLayout * layout,
    const guint8 * frame, gfloat iou_threshold, gboolean appearance, guint max_age)
{
  gboolean *track_taken, *det_taken;
  gfloat *hists = NULL;
  guint i, j;

  if (appearance && n) {
    g_array_set_size (self->hists, (gsize) n * HIST_BINS);
    hists = (gfloat *) self->hists->data;
    for (j = 0; j < n; j++)
      box_histogram (layout, frame, &objs[j], hists + j * HIST_BINS);
  }

  g_array_set_size (self->candidates, 0);
  for (i = 0; i < tracks->len; i++) {
    Track *t = &g_array_index (tracks, Track, i);

    for (j = 0; j < n; j++) {
      gfloat iou;
      Candidate c;

      if (objs[j].class_id != t->class_id)
        continue;
      iou = box_iou (t->x, t->y, t->w, t->h, objs[j].x, objs[j].y, objs[j].w,
          objs[j].h);
      if (iou < iou_threshold)
        continue;
      c.score = iou;
      if (hists)
        c.score += 0.5f * hist_similarity (t->hist, hists + j * HIST_BINS);
      c.track = i;
      c.det = j;
      g_array_append_val (self->candidates, c);
    }
  }
  g_array_sort (self->candidates, candidate_compare);

  track_taken = g_newa (gboolean, tracks->len + 1);
  det_taken = g_newa (gboolean, n + 1);
  memset (track_taken, 0, sizeof (gboolean) * (tracks->len + 1));
  memset (det_taken, 0, sizeof (gboolean) * (n + 1));
  for (i = 0; i < self->candidates->len; i++) {
    Candidate *c = &g_array_index (self->candidates, Candidate, i);
    Track *t = &g_array_index (tracks, Track, c->track);

    if (track_taken[c->track] || det_taken[c->det])
      continue;
    track_taken[c->track] = det_taken[c->det] = TRUE;
    track_update (t, &objs[c->det], hists ? hists + c->det * HIST_BINS : NULL);
    objs[c->det].track_id = t->id;
    objs[c->det].age = 0;
  }

  /* Age the tracks nobody matched (before new ones join the array). */
  for (i = tracks->len; i-- > 0;) {
    Track *t = &g_array_index (tracks, Track, i);

    if (track_taken[i])
      continue;
    t->visible = FALSE;
    if (++t->age > max_age)
      g_array_remove_index_fast (tracks, i);
  }

  for (j = 0; j < n; j++) {
    Track t = { 0, };

    if (det_taken[j])
      continue;
    t.id = ++self->next_id;
    if (hists)
      memcpy (t.hist, hists + j * HIST_BINS, sizeof (t.hist));
    track_update (&t, &objs[j], NULL);
    g_array_append_val (tracks, t);
    objs[j].track_id = t.id;
    objs[j].age = 0;
  }
}

/* A frame without inference: report the tracks seen at the last one. */
static void
tracker_carry_frame (GArray * tracks, guint frame, guint source_id,
    guint max_age, GArray * out)
{
  guint i;

  for (i = tracks->len; i-- > 0;) {
    Track *t = &g_array_index (tracks, Track, i);
    AnalyticsObject o = { 0, };

    if (++t->age > max_age) {
      g_array_remove_index_fast (tracks, i);
      continue;
    }
    if (!t->visible)
      continue;
    o.frame = frame;
    o.source_id = source_id;
    o.class_id = t->class_id;
    o.confidence = t->confidence;
    o.x = t->x;
    o.y = t->y;
    o.w = t->w;
    o.h = t->h;
    o.track_id = t->id;
    o.age = t->age;
    g_array_append_val (out, o);
  }
}

/* The tracking of one batch: the processing thread. */
static gboolean
tracker_work (GstBaseTransform * trans, GstBuffer * buf,
    const AnalyticsFrameLayout * layout, gpointer data)
{
  GstAnalyticsTracker *self = GST_ANALYTICS_TRACKER (trans);
  AnalyticsDetectionMeta *meta;
  GstMapInfo map;
  guint max_age, f, first = 0;
  gfloat iou_threshold;
  gboolean appearance;

  GST_OBJECT_LOCK (self);
  max_age = self->max_age;
  iou_threshold = self->iou_threshold;
  appearance = self->appearance;
  GST_OBJECT_UNLOCK (self);


  meta = analytics_buffer_get_detection_meta (buf);
  if (!meta || !meta->inferred) {
    if (!meta)
      meta = analytics_buffer_add_detection_meta (buf, FALSE);
    g_array_set_size (meta->objects, 0);
    for (f = 0; f < layout->n_frames; f++) {
      guint source = analytics_frame_layout_source (layout, f);

      tracker_carry_frame (tracker_tracks (self, source), f, source, max_age,
          meta->objects);
    }
    return TRUE;
  }

  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, (NULL), ("cannot map a batch"));
    return FALSE;
  }
  /* Objects are ordered by frame: one run per frame. */
  for (f = 0; f < layout->n_frames; f++) {
    AnalyticsObject *objs =
        &g_array_index (meta->objects, AnalyticsObject, first);
    guint n = 0;

    while (first + n < meta->objects->len && objs[n].frame == f)
      n++;
    tracker_match_frame (self,
        tracker_tracks (self, analytics_frame_layout_source (layout, f)),
        objs, n, layout, map.data + (gsize) f * layout->height * layout->stride,
        iou_threshold, appearance, max_age);
    first += n;
  }
  gst_buffer_unmap (buf, &map);
  return TRUE;
}

/* The chain queues the batch to the processing thread, which changes the
 * meta's objects before the push. */
static GstFlowReturn
gst_analytics_tracker_process (GstAnalyticsFilter * filter, GstBuffer * buf,
    const AnalyticsFrameLayout * layout)
{
  GstAnalyticsTracker *self = GST_ANALYTICS_TRACKER (filter);
  guint max_in_flight;

  GST_OBJECT_LOCK (self);
  max_in_flight = self->max_in_flight;
  GST_OBJECT_UNLOCK (self);
  /* a batch without inference gets its meta here, while it is writable */
  if (!analytics_buffer_get_detection_meta (buf))
    analytics_buffer_add_detection_meta (buf, FALSE);
  return analytics_async_queue (&self->async, buf, layout, NULL,
      max_in_flight);
}

static gboolean
gst_analytics_tracker_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  return analytics_async_sink_event (&GST_ANALYTICS_TRACKER (trans)->async,
      event, GST_BASE_TRANSFORM_CLASS (gst_analytics_tracker_parent_class)
      ->sink_event);
}

static gboolean
gst_analytics_tracker_stop (GstBaseTransform * trans)
{
  analytics_async_stop (&GST_ANALYTICS_TRACKER (trans)->async);
  return TRUE;
}


static gboolean
gst_analytics_tracker_start (GstBaseTransform * trans)
{
  GstAnalyticsTracker *self = GST_ANALYTICS_TRACKER (trans);

  g_hash_table_remove_all (self->sources);
  self->next_id = 0;
  analytics_async_start (&self->async);
  return TRUE;
}

static void
gst_analytics_tracker_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAnalyticsTracker *self = GST_ANALYTICS_TRACKER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MAX_AGE:
      self->max_age = g_value_get_uint (value);
      break;
    case PROP_IOU_THRESHOLD:
      self->iou_threshold = g_value_get_float (value);
      break;
    case PROP_APPEARANCE:
      self->appearance = g_value_get_boolean (value);
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
gst_analytics_tracker_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstAnalyticsTracker *self = GST_ANALYTICS_TRACKER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MAX_AGE:
      g_value_set_uint (value, self->max_age);
      break;
    case PROP_IOU_THRESHOLD:
      g_value_set_float (value, self->iou_threshold);
      break;
    case PROP_APPEARANCE:
      g_value_set_boolean (value, self->appearance);
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
gst_analytics_tracker_finalize (GObject * object)
{
  GstAnalyticsTracker *self = GST_ANALYTICS_TRACKER (object);

  g_hash_table_unref (self->sources);
  g_array_unref (self->candidates);
  g_array_unref (self->hists);
  analytics_async_clear (&self->async);
  G_OBJECT_CLASS (gst_analytics_tracker_parent_class)->finalize (object);
}

static void
gst_analytics_tracker_class_init (GstAnalyticsTrackerClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstAnalyticsFilterClass *filter_class = GST_ANALYTICS_FILTER_CLASS (klass);

  gobject_class->set_property = gst_analytics_tracker_set_property;
  gobject_class->get_property = gst_analytics_tracker_get_property;
  gobject_class->finalize = gst_analytics_tracker_finalize;

  /**
   * GstAnalyticsTracker:max-age:
   *
   * Frames a track survives without a matching detection.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_MAX_AGE,
      g_param_spec_uint ("max-age", "Max age",
          "Frames a track survives unmatched", 0, G_MAXINT, DEFAULT_MAX_AGE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstAnalyticsTracker:iou-threshold:
   *
   * Least overlap (intersection over union) of a detection with a track for
   * them to match.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_IOU_THRESHOLD,
      g_param_spec_float ("iou-threshold", "IoU threshold",
          "Least IoU of a detection and a track to match", 0.0f, 1.0f,
          DEFAULT_IOU_THRESHOLD, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstAnalyticsTracker:appearance:
   *
   * Compute a luma histogram over every detection's box and use it in the
   * matching: the costly part, proportional to the boxes' area.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_APPEARANCE,
      g_param_spec_boolean ("appearance", "Appearance",
          "Match by box appearance (histograms) too", DEFAULT_APPEARANCE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstAnalyticsTracker:max-in-flight:
   *
   * Batches queued to the processing thread or not yet pushed by the
   * output thread before the chain blocks.
   *
   * Since: 0.2
   */
  g_object_class_install_property (gobject_class, PROP_MAX_IN_FLIGHT,
      g_param_spec_uint ("max-in-flight", "Max in flight",
          "Batches in flight before the chain blocks", 1, 64, 2,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  gst_element_class_set_static_metadata (element_class,
      "Analytics tracker", "Filter/Analyzer/Video",
      "Tracks detected objects across frames on the CPU "
      "(nvtracker stand-in)", "gpuprof project");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_analytics_tracker_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_analytics_tracker_stop);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_analytics_tracker_sink_event);
  filter_class->process = GST_DEBUG_FUNCPTR (gst_analytics_tracker_process);

  GST_DEBUG_CATEGORY_INIT (gst_analytics_tracker_debug, "analyticstracker", 0,
      "gpuprof analytics tracker");
}

static void
gst_analytics_tracker_init (GstAnalyticsTracker * self)
{
  self->max_age = DEFAULT_MAX_AGE;
  self->iou_threshold = DEFAULT_IOU_THRESHOLD;
  self->appearance = DEFAULT_APPEARANCE;
  self->sources = g_hash_table_new_full (NULL, NULL, NULL,
      (GDestroyNotify) g_array_unref);
  self->candidates = g_array_new (FALSE, FALSE, sizeof (Candidate));
  self->hists = g_array_new (FALSE, FALSE, sizeof (gfloat));
  self->max_in_flight = 2;
  analytics_async_init (&self->async, GST_BASE_TRANSFORM (self),
      "tracker-proc", "tracker-output", tracker_work, NULL);
}
