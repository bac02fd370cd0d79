/* gpuprof: the stall watchdog (see gpuprof-stall.h, docs/live.md).
 *
 * Only counters the hooks already keep are read (each pad's buffer count):
 * a pad whose count has not moved for the threshold, after it moved
 * before, is stalled. The line names the pipeline's first element (in
 * flow order: sources first) that still receives buffers but pushes none —
 * it holds or drops them — else the stopped pad nearest the sources, and
 * says what the pads tell: whether buffers still arrive upstream. */
#include "gpuprof-stall.h"

#include "gpuprof-clock.h"
#include "gpuprof-thread.h"

#include <string.h>

#define MIN_STALL_NS (2 * GST_SECOND)
#define GAP_FACTOR 4

typedef struct
{
  guint64 buffers;
  guint64 changed_ns;           /* when the count last moved */
  guint64 gap_ns;               /* normal time between buffers (smoothed) */
  guint64 seen;                 /* the check that last saw the pad */
} PadWatch;

typedef struct
{
  guint64 playing_since;        /* 0: not seen PLAYING */
  gboolean stalled;             /* said; cleared when buffers flow again */
  guint64 stalled_since;
  gboolean said_nothing;        /* "no buffer yet" said */
} PipeWatch;

struct _GpuprofStall
{
  guint64 stall_ns;             /* 0: auto */
  GHashTable *pads;             /* pad id -> PadWatch */
  GHashTable *pipes;            /* pipeline id -> PipeWatch */
  GArray *counts;               /* scratch: GpuprofPadCount */
  guint64 check;                /* checks made */
};

GpuprofStall *
gpuprof_stall_new (gdouble stall_s)
{
  GpuprofStall *s = g_new0 (GpuprofStall, 1);

  s->stall_ns = (guint64) (stall_s * GST_SECOND);
  s->pads = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  s->pipes = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  s->counts = g_array_new (FALSE, FALSE, sizeof (GpuprofPadCount));
  return s;
}

void
gpuprof_stall_free (GpuprofStall * s)
{
  if (!s)
    return;
  g_hash_table_unref (s->pads);
  g_hash_table_unref (s->pipes);
  g_array_unref (s->counts);
  g_free (s);
}

static guint64
threshold (GpuprofStall * s, const PadWatch * w)
{
  if (s->stall_ns)
    return s->stall_ns;
  return MAX (MIN_STALL_NS, GAP_FACTOR * w->gap_ns);
}

static PipeWatch *
pipe_watch (GpuprofStall * s, guint32 id)
{
  PipeWatch *w = g_hash_table_lookup (s->pipes, GUINT_TO_POINTER (id));

  if (!w) {
    w = g_new0 (PipeWatch, 1);
    g_hash_table_insert (s->pipes, GUINT_TO_POINTER (id), w);
  }
  return w;
}

static gboolean
pipeline_playing (GpuprofPipeline * pl)
{
  /* a racy read of the state is enough for a watchdog: pl->element is a
   * weak pointer cleared under the registry lock when it goes. A pipeline
   * whose sinks got no buffer stays on its way to PLAYING (READY or PAUSED:
   * they cannot preroll): it is waiting all the same. */
  GstElement *e = pl->element;

  return e && GST_STATE_TARGET (e) == GST_STATE_PLAYING
      && GST_STATE (e) >= GST_STATE_READY;
}

/* what one element's pads did by now: any input moving, output stopped */
typedef struct
{
  GpuprofElement *element;
  const gchar *stopped_pad;     /* a src pad (else sink pad) that stopped */
  guint64 stopped_ns;           /* for how long */
  guint64 normal_gap_ns;
  gboolean input_moving;        /* a sink pad got a buffer within the limit */
  gboolean any_stopped;
} ElementView;

static void
look_at_element (GpuprofStall * s, GpuprofObjects * o, GpuprofElement * e,
    guint64 now, ElementView * v, guint64 * total)
{
  guint i;

  memset (v, 0, sizeof (*v));
  v->element = e;
  gpuprof_objects_pad_counts (o, e, s->counts);
  for (i = 0; i < s->counts->len; i++) {
    GpuprofPadCount *c = &g_array_index (s->counts, GpuprofPadCount, i);
    PadWatch *w = g_hash_table_lookup (s->pads, GUINT_TO_POINTER (c->id));

    *total += c->buffers;
    if (!w) {
      w = g_new0 (PadWatch, 1);
      w->buffers = c->buffers;
      w->changed_ns = now;
      w->seen = s->check;
      g_hash_table_insert (s->pads, GUINT_TO_POINTER (c->id), w);
      continue;
    }
    w->seen = s->check;
    if (c->buffers != w->buffers) {
      guint64 gap = c->buffers > w->buffers ?
          (now - w->changed_ns) / (c->buffers - w->buffers) : 0;
      /* a new run starts the count again: no gap from it */
      if (c->buffers > w->buffers && w->buffers > 0)
        w->gap_ns = w->gap_ns ? (3 * w->gap_ns + gap) / 4 : gap;
      w->buffers = c->buffers;
      w->changed_ns = now;
      if (c->direction == GST_PAD_SINK)
        v->input_moving = TRUE;
      continue;
    }
    if (!c->buffers)
      continue;                 /* never flowed: not a stall of this pad */
    if (now - w->changed_ns < threshold (s, w)) {
      if (c->direction == GST_PAD_SINK)
        v->input_moving = TRUE;
      continue;
    }
    /* a src pad names the stop better than a sink pad */
    if (!v->any_stopped || (c->direction == GST_PAD_SRC
            && v->stopped_pad && v->stopped_ns < now - w->changed_ns)) {
      v->stopped_pad = c->name;
      v->stopped_ns = now - w->changed_ns;
      v->normal_gap_ns = w->gap_ns;
    }
    v->any_stopped = TRUE;
  }
}

static const GpuprofElement *
view_element (GArray * views, guint32 id)
{
  guint i;

  for (i = 0; i < views->len; i++)
    if (g_array_index (views, ElementView, i).element->id == id)
      return g_array_index (views, ElementView, i).element;
  return NULL;
}

/* the order threads are told in: stuck inside an element first (the
 * cause), then blocked on a full queue (its upstream), then waiting */
static guint
doing_rank (GpuprofDoingKind kind, const GpuprofElement * e)
{
  if (kind == GPUPROF_DOING_LOOP)
    return 2;
  return e->role == GPUPROF_ROLE_QUEUE ? 1 : 0;
}

static void
append_doing (GString * s, const gchar * thread, GpuprofDoingKind kind,
    const GpuprofElement * e, guint64 ns)
{
  const gchar *what;

  if (kind == GPUPROF_DOING_CHAIN && e->role == GPUPROF_ROLE_QUEUE)
    what = "blocked in full queue %s";
  else if (kind == GPUPROF_DOING_CHAIN && e->role == GPUPROF_ROLE_SINK
      && e->waits_on_clock)
    what = "waiting on the clock in %s (synced sink)";
  else if (kind == GPUPROF_DOING_CHAIN)
    what = "inside %s's chain";
  else if (e->role == GPUPROF_ROLE_QUEUE)
    what = "waiting for data in queue %s";
  else if (e->waits_on_clock)
    what = "waiting on the clock in %s (live source)";
  else
    what = "waiting for input in %s";
  g_string_append_printf (s, "%sthread %s ", s->len ? "; " : "", thread);
  g_string_append_printf (s, what, e->path);
  g_string_append_printf (s, " for %.1f s", ns / 1e9);
}

/* What the pipeline's threads have been doing for at least min_ns, as the
 * hooks publish it (gpuprof_thread_set_doing); *stuck: one is inside an
 * element's chain. NULL when none. */
static gchar *
threads_now (GArray * views, GpuprofPipeline * pl, guint64 now,
    guint64 min_ns, gboolean * stuck)
{
  GPtrArray *threads = gpuprof_thread_list ();
  GString *s = g_string_new (NULL);
  guint rank, i;

  *stuck = FALSE;
  for (rank = 0; rank < 3; rank++) {
    for (i = 0; i < threads->len; i++) {
      GpuprofThread *t = g_ptr_array_index (threads, i);
      const GpuprofElement *e;
      GpuprofDoingKind kind;
      guint32 id;
      guint64 since;
      gchar *name;

      if (__atomic_load_n (&t->pipeline_id, __ATOMIC_RELAXED) != pl->id
          || !gpuprof_thread_read_doing (t, &kind, &id, &since)
          || kind == GPUPROF_DOING_NOTHING || since > now
          || now - since < min_ns || !(e = view_element (views, id))
          || doing_rank (kind, e) != rank)
        continue;
      name = gpuprof_thread_dup_name (t);
      append_doing (s, name, kind, e, now - since);
      g_free (name);
      if (rank < 2)
        *stuck = TRUE;
    }
  }
  g_ptr_array_unref (threads);
  if (!s->len) {
    g_string_free (s, TRUE);
    return NULL;
  }
  return g_string_free (s, FALSE);
}

static void
say (const gchar * line)
{
  GST_WARNING ("%s", line);
  g_printerr ("%s\n", line);
}

static void
check_pipeline (GpuprofStall * s, GpuprofObjects * o, GpuprofPipeline * pl,
    GPtrArray * all, guint64 now)
{
  PipeWatch *pw = pipe_watch (s, pl->id);
  GArray *views = g_array_new (FALSE, FALSE, sizeof (ElementView));
  const ElementView *culprit = NULL;
  guint64 total = 0;
  gboolean stopped = FALSE, moving = FALSE;
  guint i;

  for (i = 0; i < all->len; i++) {
    GpuprofElement *e = g_ptr_array_index (all, i);
    ElementView v;

    if (e->pipeline != pl)
      continue;
    look_at_element (s, o, e, now, &v, &total);
    g_array_append_val (views, v);
  }
  if (!pipeline_playing (pl)) {
    pw->playing_since = 0;
    goto done;
  }
  if (!pw->playing_since)
    pw->playing_since = now;

  if (!total) {
    if (!pw->said_nothing && now - pw->playing_since >= MAX (s->stall_ns,
            MIN_STALL_NS)) {
      gchar *where = gpuprof_stall_sources (all, pl);
      gchar *line = g_strdup_printf ("gpuprof: stall: %s: no buffer yet "
          "since PLAYING %.1f s ago; waiting for input in %s", pl->name,
          (now - pw->playing_since) / 1e9, where);

      say (line);
      g_free (line);
      g_free (where);
      pw->said_nothing = TRUE;
    }
    goto done;
  }

  for (i = 0; i < views->len; i++) {
    const ElementView *v = &g_array_index (views, ElementView, i);
    if (v->any_stopped)
      stopped = TRUE;
    else if (v->input_moving)
      moving = TRUE;
    /* receives but pushes nothing: holds or drops what comes */
    if (v->any_stopped && v->input_moving && !culprit)
      culprit = v;
  }
  /* everything stopped: the stop nearest the sources */
  for (i = 0; i < views->len && !culprit && stopped && !moving; i++) {
    const ElementView *v = &g_array_index (views, ElementView, i);
    if (v->any_stopped && v->element->role == GPUPROF_ROLE_SOURCE)
      culprit = v;
  }
  for (i = 0; i < views->len && !culprit && stopped; i++) {
    const ElementView *v = &g_array_index (views, ElementView, i);
    if (v->any_stopped)
      culprit = v;
  }

  if (culprit && !pw->stalled) {
    gboolean stuck;
    gchar *doing = threads_now (views, pl, now, culprit->stopped_ns / 2,
        &stuck);
    GString *line = g_string_new (NULL);

    g_string_printf (line, "gpuprof: stall: %s:%s: no buffer for %.1f s "
        "(normally every %.1f ms)", culprit->element->path,
        culprit->stopped_pad, culprit->stopped_ns / 1e9,
        culprit->normal_gap_ns / 1e6);
    /* a thread stuck inside an element explains more than the pads */
    if (stuck)
      ;
    else if (culprit->input_moving)
      g_string_append (line, "; buffers still reach it: it holds or drops "
          "them");
    else
      g_string_append (line, "; nothing moves upstream of it either: "
          "waiting for input");
    if (doing)
      g_string_append_printf (line, "; now: %s", doing);
    say (line->str);
    g_string_free (line, TRUE);
    g_free (doing);
    pw->stalled = TRUE;
    pw->stalled_since = now - culprit->stopped_ns;
  } else if (!culprit && pw->stalled) {
    gchar *line = g_strdup_printf ("gpuprof: stall: %s flows again after "
        "%.1f s", pl->name, (now - pw->stalled_since) / 1e9);
    say (line);
    g_free (line);
    pw->stalled = FALSE;
  }
done:
  g_array_unref (views);
}

static gboolean
not_seen (gpointer key, gpointer value, gpointer user_data)
{
  return ((PadWatch *) value)->seen != *(guint64 *) user_data;
}

void
gpuprof_stall_check (GpuprofStall * s, GpuprofObjects * o, guint64 now)
{
  GPtrArray *pipelines = gpuprof_objects_pipelines (o);
  GPtrArray *all = gpuprof_objects_elements (o);
  guint i;

  s->check++;
  for (i = 0; i < pipelines->len; i++)
    check_pipeline (s, o, g_ptr_array_index (pipelines, i), all, now);
  /* pads gone, or of elements taken out: their watch goes with them (a
   * service adding and removing cameras for days) */
  g_hash_table_foreach_remove (s->pads, not_seen, &s->check);
  g_ptr_array_unref (all);
  g_ptr_array_unref (pipelines);
}

void
gpuprof_stall_run_end (GpuprofStall * s, GpuprofPipeline * pl)
{
  g_hash_table_remove (s->pipes, GUINT_TO_POINTER (pl->id));
}

gchar *
gpuprof_stall_sources (GPtrArray * all, GpuprofPipeline * pl)
{
  GString *where = g_string_new (NULL);
  guint i;

  for (i = 0; i < all->len; i++) {
    GpuprofElement *e = g_ptr_array_index (all, i);
    if (e->pipeline == pl && e->role == GPUPROF_ROLE_SOURCE)
      g_string_append_printf (where, "%s%s", where->len ? ", " : "", e->path);
  }
  if (!where->len)
    g_string_append (where, "its sources (none seen yet)");
  return g_string_free (where, FALSE);
}
