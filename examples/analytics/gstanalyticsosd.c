/* analyticsosd: on-screen display stand-in (like DeepStream's nvdsosd).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-analyticsosd
 * @title: analyticsosd
 *
 * Draws the objects of the #AnalyticsDetectionMeta into the frames, in place,
 * on the CPU: a translucent fill (alpha blending every pixel of the box), a
 * border in the class colour, and the track id in a small bitmap font. Like
 * a real OSD it is expensive; cost=N repeats the drawing N times, to plant a
 * slow OSD in a pipeline.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=100 ! analyticsmux.sink_0 \
 *   analyticsmux name=analyticsmux ! analyticsinfer ! analyticstracker \
 *   ! analyticsosd cost=20 ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstanalyticsosd.h"
#include "analytics-frames.h"

GST_DEBUG_CATEGORY_STATIC (gst_analytics_osd_debug);
#define GST_CAT_DEFAULT gst_analytics_osd_debug

#define DEFAULT_COST 1
#define DEFAULT_BORDER_WIDTH 2
#define DEFAULT_FILL TRUE
#define DEFAULT_DISPLAY_TEXT TRUE
#define FILL_ALPHA 64           /* of 256 */
#define FONT_SCALE 2

enum
{
  PROP_0,
  PROP_COST,
  PROP_BORDER_WIDTH,
  PROP_FILL,
  PROP_DISPLAY_TEXT,
};

struct _GstAnalyticsOsd
{
  GstAnalyticsFilter parent;

  /* object lock */
  guint cost;
  guint border_width;
  gboolean fill;
  gboolean display_text;

  /* streaming thread only */
};

G_DEFINE_TYPE (GstAnalyticsOsd, gst_analytics_osd, GST_TYPE_ANALYTICS_FILTER);
GST_ELEMENT_REGISTER_DEFINE (analyticsosd, "analyticsosd", GST_RANK_NONE,
    GST_TYPE_ANALYTICS_OSD);

/* RGBA per class (ANALYTICS_N_CLASSES). */
static const guint8 class_colors[ANALYTICS_N_CLASSES][3] = {
  {255, 64, 64}, {64, 255, 64}, {64, 128, 255}, {255, 224, 32},
};

/* 3x5 digits, one row per 3 bits, top row first. */
static const guint8 digit_font[10][5] = {
  {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7},
  {5, 5, 7, 1, 1}, {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1},
  {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7},
};

typedef struct
{
  guint8 *data;
  gint width;
  gint height;
  guint stride;
} Canvas;

static void
canvas_rect (const Canvas * c, gint x0, gint y0, gint x1, gint y1,
    const guint8 * rgb, guint alpha)
{
  gint x, y;

  x0 = CLAMP (x0, 0, c->width);
  x1 = CLAMP (x1, x0, c->width);
  y0 = CLAMP (y0, 0, c->height);
  y1 = CLAMP (y1, y0, c->height);
  for (y = y0; y < y1; y++) {
    guint8 *p = c->data + (gsize) y * c->stride + (gsize) x0 * 4;

    for (x = x0; x < x1; x++, p += 4) {
      p[0] = (p[0] * (256 - alpha) + rgb[0] * alpha) >> 8;
      p[1] = (p[1] * (256 - alpha) + rgb[1] * alpha) >> 8;
      p[2] = (p[2] * (256 - alpha) + rgb[2] * alpha) >> 8;
    }
  }
}

static void
canvas_number (const Canvas * c, gint x, gint y, guint64 number,
    const guint8 * rgb)
{
  gchar text[24];
  gint i, row, col;

  g_snprintf (text, sizeof (text), "%" G_GUINT64_FORMAT, number);
  for (i = 0; text[i]; i++) {
    const guint8 *glyph = digit_font[text[i] - '0'];
    gint gx = x + i * 4 * FONT_SCALE;

    for (row = 0; row < 5; row++)
      for (col = 0; col < 3; col++)
        if (glyph[row] & (4 >> col))
          canvas_rect (c, gx + col * FONT_SCALE, y + row * FONT_SCALE,
              gx + (col + 1) * FONT_SCALE, y + (row + 1) * FONT_SCALE, rgb,
              256);
  }
}

static void
osd_draw_object (const Canvas * c, const AnalyticsObject * o, guint border,
    gboolean fill, gboolean text)
{
  const guint8 *rgb = class_colors[o->class_id % ANALYTICS_N_CLASSES];
  gint b = border;

  if (fill)
    canvas_rect (c, o->x, o->y, o->x + o->w, o->y + o->h, rgb, FILL_ALPHA);
  if (b > 0) {
    canvas_rect (c, o->x, o->y, o->x + o->w, o->y + b, rgb, 256);
    canvas_rect (c, o->x, o->y + o->h - b, o->x + o->w, o->y + o->h, rgb, 256);
    canvas_rect (c, o->x, o->y, o->x + b, o->y + o->h, rgb, 256);
    canvas_rect (c, o->x + o->w - b, o->y, o->x + o->w, o->y + o->h, rgb, 256);
  }
  if (text)
    canvas_number (c, o->x + b + 1, o->y + b + 1,
        o->track_id ? o->track_id : o->class_id, rgb);
}

static GstFlowReturn
gst_analytics_osd_process (GstAnalyticsFilter * filter, GstBuffer * buf,
    const AnalyticsFrameLayout * layout)
{
  GstAnalyticsOsd *self = GST_ANALYTICS_OSD (filter);
  AnalyticsDetectionMeta *meta = analytics_buffer_get_detection_meta (buf);
  GstMapInfo map;
  guint cost, border, pass, i;
  gboolean fill, text;

  if (!meta || meta->objects->len == 0)
    return GST_FLOW_OK;

  GST_OBJECT_LOCK (self);
  cost = self->cost;
  border = self->border_width;
  fill = self->fill;
  text = self->display_text;
  GST_OBJECT_UNLOCK (self);

  if (!gst_buffer_map (buf, &map, GST_MAP_READWRITE))
    return GST_FLOW_ERROR;

  for (pass = 0; pass < cost; pass++) {
    for (i = 0; i < meta->objects->len; i++) {
      const AnalyticsObject *o =
          &g_array_index (meta->objects, AnalyticsObject, i);
      Canvas c;

      if (o->frame >= layout->n_frames)
        continue;
      c.data = map.data + (gsize) o->frame * layout->height * layout->stride;
      c.width = layout->width;
      c.height = layout->height;
      c.stride = layout->stride;
      osd_draw_object (&c, o, border, fill, text);
    }
  }
  gst_buffer_unmap (buf, &map);
  return GST_FLOW_OK;
}


static void
gst_analytics_osd_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAnalyticsOsd *self = GST_ANALYTICS_OSD (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_COST:
      self->cost = g_value_get_uint (value);
      break;
    case PROP_BORDER_WIDTH:
      self->border_width = g_value_get_uint (value);
      break;
    case PROP_FILL:
      self->fill = g_value_get_boolean (value);
      break;
    case PROP_DISPLAY_TEXT:
      self->display_text = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_analytics_osd_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstAnalyticsOsd *self = GST_ANALYTICS_OSD (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_COST:
      g_value_set_uint (value, self->cost);
      break;
    case PROP_BORDER_WIDTH:
      g_value_set_uint (value, self->border_width);
      break;
    case PROP_FILL:
      g_value_set_boolean (value, self->fill);
      break;
    case PROP_DISPLAY_TEXT:
      g_value_set_boolean (value, self->display_text);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_analytics_osd_class_init (GstAnalyticsOsdClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAnalyticsFilterClass *filter_class = GST_ANALYTICS_FILTER_CLASS (klass);

  gobject_class->set_property = gst_analytics_osd_set_property;
  gobject_class->get_property = gst_analytics_osd_get_property;

  /**
   * GstAnalyticsOsd:cost:
   *
   * Times every object is drawn: the OSD's time grows linearly with it.
   * Raise it to plant a slow OSD.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_COST,
      g_param_spec_uint ("cost", "Cost", "Drawing passes per object",
          1, 100000, DEFAULT_COST, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstAnalyticsOsd:border-width:
   *
   * Width of box borders in pixels; 0 draws none.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_BORDER_WIDTH,
      g_param_spec_uint ("border-width", "Border width",
          "Box border width in pixels", 0, 64, DEFAULT_BORDER_WIDTH,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstAnalyticsOsd:fill:
   *
   * Blend a translucent class colour over every box (the costly part).
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_FILL,
      g_param_spec_boolean ("fill", "Fill", "Translucent box fill",
          DEFAULT_FILL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  /**
   * GstAnalyticsOsd:display-text:
   *
   * Write the track id (or the class before tracking) in each box.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_DISPLAY_TEXT,
      g_param_spec_boolean ("display-text", "Display text",
          "Write the track id in each box", DEFAULT_DISPLAY_TEXT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_set_static_metadata (element_class,
      "Analytics OSD", "Filter/Effect/Video",
      "Draws detected objects into the frames on the CPU "
      "(nvdsosd stand-in)", "gpuprof project");

  filter_class->process = GST_DEBUG_FUNCPTR (gst_analytics_osd_process);

  GST_DEBUG_CATEGORY_INIT (gst_analytics_osd_debug, "analyticsosd", 0,
      "gpuprof analytics OSD");
}

static void
gst_analytics_osd_init (GstAnalyticsOsd * self)
{
  self->cost = DEFAULT_COST;
  self->border_width = DEFAULT_BORDER_WIDTH;
  self->fill = DEFAULT_FILL;
  self->display_text = DEFAULT_DISPLAY_TEXT;
}
