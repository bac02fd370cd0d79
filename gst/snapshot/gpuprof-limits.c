/* gpuprof: what limits a run — candidates from the snapshot's rows, and
 * their ranking (gpuprof-limits.h). */
#include "gpuprof-limits.h"

#include <stdlib.h>
#include <string.h>

/* a stage's utilisation: its share of its thread's wall */
#define occ gpuprof_element_row_occupancy

/* rows of the limits table written at most: the limit, the runner-up and
 * a few behind them, whatever the number of elements */
#define MAX_ROWS 8

struct _GpuprofLimitCandidates
{
  GArray *all;                  /* GpuprofLimitCandidate */
};

GpuprofLimitCandidates *
gpuprof_limits_candidates_new (void)
{
  GpuprofLimitCandidates *c = g_new0 (GpuprofLimitCandidates, 1);

  c->all = g_array_new (FALSE, TRUE, sizeof (GpuprofLimitCandidate));
  return c;
}

static void
candidates_free (GpuprofLimitCandidates * c)
{
  guint i;

  for (i = 0; i < c->all->len; i++)
    gpuprof_summary_row_clear (GPUPROF_SUMMARY_LIMITS,
        &g_array_index (c->all, GpuprofLimitCandidate, i).row);
  g_array_unref (c->all);
  g_free (c);
}

GpuprofLimitCandidate *
gpuprof_limits_add (GpuprofLimitCandidates * c, const gchar * kind,
    const gchar * what, gdouble utilisation, gboolean saturated,
    gdouble rate, gchar * evidence, gchar * advice)
{
  GpuprofLimitCandidate cand = { {0} };

  cand.row.kind = g_strdup (kind);
  cand.row.what = g_strdup (what ? what : "");
  cand.row.utilisation = CLAMP (utilisation, 0.0, 1.0);
  cand.row.rate = rate;
  cand.row.evidence = evidence ? evidence : g_strdup ("");
  cand.row.advice = advice ? advice : g_strdup ("");
  cand.saturated = saturated;
  cand.weight = cand.row.utilisation;
  g_array_append_val (c->all, cand);
  return &g_array_index (c->all, GpuprofLimitCandidate, c->all->len - 1);
}

/* ------------------------------------------------------------ helpers */

static const GpuprofElementRow *
element_at (const GpuprofSnapshot * s, guint i)
{
  return &g_array_index (s->elements, GpuprofElementRow, i);
}

/* the element row of @path (no call into gpuprof-snapshot.c, which calls
 * here: files of a folder call each other one way) */
static const GpuprofElementRow *
find_element (const GpuprofSnapshot * s, const gchar * path)
{
  guint i;

  for (i = 0; i < s->elements->len; i++)
    if (!g_strcmp0 (element_at (s, i)->path, path))
      return element_at (s, i);
  return NULL;
}

static gboolean
is_role (const GpuprofElementRow * r, const gchar * role)
{
  return !g_strcmp0 (r->role, role);
}

/* what an element counts as its throughput: a sink what it received */
static guint64
element_buffers (const GpuprofElementRow * r)
{
  return is_role (r, "sink") ? r->buffers_in : r->buffers_out;
}

static gdouble
per_second (guint64 n, guint64 wall_ns)
{
  return wall_ns ? n / (wall_ns / 1e9) : 0.0;
}

static gdouble
share (guint64 part, guint64 whole)
{
  return whole ? MIN ((gdouble) part / whole, 1.0) : 0.0;
}

/* the element's last path component, for short sentences */
static const gchar *
short_name (const gchar * path)
{
  const gchar *slash = path ? strrchr (path, '/') : NULL;

  return slash ? slash + 1 : path ? path : "?";
}

/* -------------------------------------------------- multi-threaded */

/* elements whose work spreads over threads a property sets: advice
 * names it (issue 22: "a multi-threaded encoder -> its threads property") */
static const struct
{
  const gchar *prefix;
  const gchar *property;
} threads_properties[] = {
  {"x264enc", "threads"},
  {"x265enc", "option-string=pools=N"},
  {"vp8enc", "threads"},
  {"vp9enc", "threads"},
  {"av1enc", "threads"},
  {"rav1enc", "threads"},
  {"svtav1enc", "logical-processors"},
  {"openh264enc", "multi-thread"},
  {"avdec_", "max-threads"},
  {"avenc_", "threads"},
  {"videoconvert", "n-threads"},
  {"videoscale", "n-threads"},
  {"videoconvertscale", "n-threads"},
  {"compositor", "max-threads"},
  {"dav1ddec", "n-threads"},
  {"jpegenc", NULL},
};

const gchar *
gpuprof_limits_threads_property (const gchar * factory)
{
  guint i;

  for (i = 0; factory && i < G_N_ELEMENTS (threads_properties); i++)
    if (g_str_has_prefix (factory, threads_properties[i].prefix))
      return threads_properties[i].property;
  return NULL;
}

/* CPU elements with a GPU counterpart (DeepStream, GStreamer's nvcodec):
 * what CPU-bound advice moves to the GPU */
static const struct
{
  const gchar *prefix;
  const gchar *gpu;
} gpu_counterparts[] = {
  {"videoconvert", "nvvideoconvert"},
  {"videoscale", "nvvideoconvert"},
  {"videoconvertscale", "nvvideoconvert"},
  {"avdec_h264", "nvv4l2decoder or nvh264dec"},
  {"avdec_h265", "nvv4l2decoder or nvh265dec"},
  {"avdec_", "nvv4l2decoder"},
  {"x264enc", "nvv4l2h264enc or nvh264enc"},
  {"x265enc", "nvv4l2h265enc or nvh265enc"},
  {"openh264enc", "nvv4l2h264enc or nvh264enc"},
  {"jpegdec", "nvjpegdec or nvv4l2decoder"},
  {"jpegenc", "nvjpegenc"},
  {"compositor", "nvmultistreamtiler or nvcompositor"},
  {"textoverlay", "nvdsosd"},
  {"videobox", "nvvideoconvert"},
  {"videoflip", "nvvideoconvert (flip-method)"},
};

static const gchar *
gpu_counterpart (const gchar * factory)
{
  guint i;

  for (i = 0; factory && i < G_N_ELEMENTS (gpu_counterparts); i++)
    if (g_str_has_prefix (factory, gpu_counterparts[i].prefix))
      return gpu_counterparts[i].gpu;
  return NULL;
}

/* ------------------------------------------------------------ drops */

/* the elements downstream of @from (through the links), breadth first */
static GPtrArray *
downstream_of (const GpuprofSnapshot * s, const gchar * from)
{
  GPtrArray *seen = g_ptr_array_new ();
  guint head = 0, i;

  g_ptr_array_add (seen, (gpointer) from);
  while (head < seen->len) {
    const gchar *at = g_ptr_array_index (seen, head++);
    for (i = 0; i < s->links->len; i++) {
      const GpuprofLinkRow *l = &g_array_index (s->links, GpuprofLinkRow, i);
      if (!g_strcmp0 (l->src, at) && l->sink
          && !g_ptr_array_find_with_equal_func (seen, l->sink, g_str_equal,
              NULL))
        g_ptr_array_add (seen, l->sink);
    }
  }
  g_ptr_array_remove_index (seen, 0);
  return seen;
}

/* The busiest element downstream of a queue that dropped: the frames it
 * could not take were thrown away before it. NULL when the links do not
 * say (a summary without them) */
static const GpuprofElementRow *
dropped_before (const GpuprofSnapshot * s, const GpuprofQueueRow * q)
{
  GPtrArray *down = downstream_of (s, q->path);
  const GpuprofElementRow *best = NULL;
  guint i;

  for (i = 0; i < down->len; i++) {
    const GpuprofElementRow *r =
        find_element (s, g_ptr_array_index (down, i));
    if (r && !is_role (r, "queue") && r->calls
        && (!best || occ (r) > occ (best)))
      best = r;
  }
  g_ptr_array_unref (down);
  return best;
}

/* the queue with drops whose downstream stage is @r */
static const GpuprofQueueRow *
drops_before (const GpuprofSnapshot * s, const GpuprofElementRow * r)
{
  guint i;

  for (i = 0; i < s->queues->len; i++) {
    const GpuprofQueueRow *q = &g_array_index (s->queues, GpuprofQueueRow, i);
    if (q->drops && dropped_before (s, q) == r)
      return q;
  }
  return NULL;
}

/* ------------------------------------------------------------ stages */

/* A stage's utilisation, its occupancy, is the share of its thread's wall
 * in its work: on a CPU, waiting for a core, or blocked in its calls (busy
 * is the first alone): said apart where the sampler told them */
/* the pool @r acquires from that ran empty at its maximum (GStreamer
 * >= 1.28's pool hooks): the longest-empty one, NULL when none did */
static const GpuprofPoolRow *
pool_ran_out (const GpuprofSnapshot * s, const GpuprofElementRow * r)
{
  const GpuprofPoolRow *best = NULL;
  guint i;

  for (i = 0; s->pools && i < s->pools->len; i++) {
    const GpuprofPoolRow *p = &g_array_index (s->pools, GpuprofPoolRow, i);
    if (p->pools == 1 && p->max_buffers && p->empty_ns
        && p->outstanding_max >= p->max_buffers
        && !g_strcmp0 (p->element, r->path)
        && (!best || p->empty_ns > best->empty_ns))
      best = p;
  }
  return best;
}

static gchar *
stage_evidence (const GpuprofElementRow * r, const GpuprofQueueRow * q,
    const GpuprofPoolRow * pool, gdouble thread_util)
{
  GString *e = g_string_new (NULL);
  /* the steady state's: start-up apart */
  gdouble per = r->calls > r->first_calls ?
      (gdouble) (r->self_ns - MIN (r->first_ns, r->self_ns)) /
      (r->calls - r->first_calls) : r->calls ?
      (gdouble) r->self_ns / r->calls : 0.0;
  gdouble core = share (r->wait_core_ns, r->thread_wall_ns);

  g_string_append_printf (e, "%.0f%% occupied on thread %s",
      occ (r) * 100, r->thread && *r->thread ? r->thread : "?");
  /* the sampler's split, where it fits in the hooks' work (at 10 Hz it
   * can give a source's loop CPU its calls did not time) */
  if ((r->cpu_ns || r->wait_core_ns) && r->busy + core <= occ (r) + 0.02)
    g_string_append_printf (e, " (on a CPU %.0f%%, waiting for a core "
        "%.0f%%)", r->busy * 100, core * 100);
  g_string_append_printf (e, ", %.*f ms/buffer", per < 1e5 ? 4 : 2,
      per / 1e6);
  /* others' work on its thread counts against it */
  if (thread_util >= occ (r) + 0.05)
    g_string_append_printf (e, " (the thread %.0f%% occupied in all)",
        thread_util * 100);
  if (q)
    g_string_append_printf (e, "; %" G_GUINT64_FORMAT " of %"
        G_GUINT64_FORMAT " buffers dropped before it at %s (leaky)",
        q->drops, q->drops + q->buffers, q->path);
  /* an acquire on an empty pool waits in its call: part of its time */
  if (pool)
    g_string_append_printf (e, "; its pool %s had all %" G_GUINT64_FORMAT
        " buffers out for %.1f ms (%" G_GUINT64_FORMAT " times, longest "
        "%.1f ms): up to that was waiting for a buffer downstream returns",
        pool->pool, pool->max_buffers, pool->empty_ns / 1e6, pool->empties,
        pool->empty_max_ns / 1e6);
  return g_string_free (e, FALSE);
}

static gchar *
stage_advice (const GpuprofElementRow * r, const GpuprofQueueRow * q,
    const GpuprofPoolRow * pool)
{
  const gchar *prop = gpuprof_limits_threads_property (r->factory);
  const gchar *gpu = gpu_counterpart (r->factory);
  GString *a = g_string_new (NULL);

  if (q)
    g_string_append_printf (a, "frames are dropped at %s: speed %s up or "
        "feed it fewer frames", q->path, short_name (r->path));
  if (pool)
    g_string_append_printf (a, "%s%s waits for its pool %s: downstream "
        "holds its buffers (speed up what comes after it, or give the pool "
        "more buffers where its element has a property for it)",
        a->len ? "; " : "", short_name (r->path), pool->pool);
  if (prop)
    g_string_append_printf (a, "%s%s spreads its work over threads: set "
        "%s (0 or the cores to use)", a->len ? "; " : "", r->factory, prop);
  if (gpu)
    g_string_append_printf (a, "%sor move it to the GPU: %s", a->len ?
        "; " : "", gpu);
  return g_string_free (a, FALSE);
}

/* the utilisation of thread @name: its work over its wall (the threads
 * table), at least @own (a stage's own share of it); @own when the table
 * does not have it */
static gdouble
thread_util (const GpuprofSnapshot * s, const gchar * name, gdouble own)
{
  guint i;

  for (i = 0; name && *name && i < s->threads->len; i++) {
    const GpuprofThreadRow *t = &g_array_index (s->threads, GpuprofThreadRow,
        i);
    if (!g_strcmp0 (t->name, name) && t->wall_ns)
      return MAX (share (t->busy_ns, t->wall_ns), own);
  }
  return own;
}

/* whether @r has the most work of the elements on its thread */
static gboolean
busiest_on_thread (const GpuprofSnapshot * s, const GpuprofElementRow * r)
{
  guint i;

  for (i = 0; i < s->elements->len; i++) {
    const GpuprofElementRow *x = element_at (s, i);
    if (x != r && !is_role (x, "queue") && !g_strcmp0 (x->thread, r->thread)
        && (occ (x) > occ (r) || (occ (x) == occ (r) && x->self_ns >
                r->self_ns)))
      return FALSE;
  }
  return TRUE;
}

static guint64
total_self (const GpuprofSnapshot * s)
{
  guint64 total = 0;
  guint i;

  for (i = 0; i < s->elements->len; i++)
    total += element_at (s, i)->self_ns;
  return total;
}

/* Every element that did work is a stage: its utilisation the busy share
 * of its thread (work over wall; waits for the clock, input or the GPU are
 * not work). The stages on one thread share it: a stage is at its limit
 * when its thread is (the sum of their work), and a stage before which a
 * leaky queue dropped frames could not take them, whatever it reads. */
static void
stage_candidates (const GpuprofSnapshot * s, GpuprofLimitCandidates * c)
{
  guint i;

  for (i = 0; i < s->elements->len; i++) {
    const GpuprofElementRow *r = element_at (s, i);
    const GpuprofQueueRow *q;
    const GpuprofPoolRow *pool;
    GpuprofLimitCandidate *cand;
    gdouble tu;

    if (is_role (r, "queue") || !r->calls || occ (r) <= 0.0)
      continue;
    q = drops_before (s, r);
    pool = pool_ran_out (s, r);
    tu = thread_util (s, r->thread, occ (r));
    /* a saturated thread: its busiest stage is at the limit */
    cand = gpuprof_limits_add (c, GPUPROF_LIMIT_STAGE, r->path, occ (r),
        (tu >= GPUPROF_LIMITS_STAGE_SATURATED && busiest_on_thread (s, r))
        || q != NULL, per_second (element_buffers (r), r->thread_wall_ns),
        stage_evidence (r, q, pool, tu), stage_advice (r, q, pool));
    cand->thread = r->thread;
    cand->thread_util = tu;
    /* its share of the work: the sampler's CPU or its self time, the
     * larger (a stage's work is not less than either says) */
    cand->cpu_share = MAX (share (r->cpu_ns, s->process_cpu_ns),
        share (r->self_ns, total_self (s)));
    /* the busiest thread first, then its busiest stage; ties: more work */
    cand->weight = (cand->saturated ? tu * 2 : 0) + occ (r) +
        r->self_ns * 1e-21;
  }
}

/* ------------------------------------------------------------ pacers */

/* The element that syncs (a sink with sync=true, identity or clocksync
 * with sync=true) and waited on the clock the largest share of its
 * thread's wall, at least GPUPROF_LIMITS_CLOCK_WAIT; NULL when none */
static const GpuprofElementRow *
clock_element (const GpuprofSnapshot * s, gdouble * wait_share)
{
  const GpuprofElementRow *el = NULL;
  gdouble best = 0;
  guint i;

  for (i = 0; i < s->elements->len; i++) {
    const GpuprofElementRow *r = element_at (s, i);
    gdouble w = share (r->clock_wait_ns, r->thread_wall_ns);

    if (w >= GPUPROF_LIMITS_CLOCK_WAIT && (!el || w > best)) {
      el = r;
      best = w;
    }
  }
  *wait_share = best;
  return el;
}

static gboolean
is_live_source (const GpuprofElementRow * r)
{
  return is_role (r, "source") && r->waits_on_clock;
}

/* Input: a source whose loop waited for data most of its thread's wall
 * (a live camera, a socket, appsrc fed by the application) paces the run;
 * so does a live source whose frames wait on the clock downstream (a
 * live source timestamps its frames as it makes them; a synced sink then
 * holds each to its time, and the source never waits itself). The one
 * that waited the largest share is named. */
static void
input_candidates (const GpuprofSnapshot * s, GpuprofLimitCandidates * c)
{
  const GpuprofElementRow *src = NULL, *clock;
  gdouble best = 0, clock_share;
  guint i, n = 0;
  GString *ev;

  clock = clock_element (s, &clock_share);
  for (i = 0; i < s->elements->len; i++) {
    const GpuprofElementRow *r = element_at (s, i);
    gdouble w = share (r->wait_input_ns, r->thread_wall_ns);

    if (!is_role (r, "source") || (w < GPUPROF_LIMITS_INPUT_WAIT
            && !(clock && is_live_source (r) && r->buffers_out)))
      continue;
    n++;
    if (!src || w > best) {
      src = r;
      best = w;
    }
  }
  if (!src)
    return;
  ev = g_string_new (src->waits_on_clock ? "live source" : "source");
  if (best >= GPUPROF_LIMITS_INPUT_WAIT)
    g_string_append_printf (ev, " waited %.1f ms for input (%.0f%% of its "
        "thread's wall)", src->wait_input_ns / 1e6, best * 100);
  g_string_append_printf (ev, ", %.1f buffers/s",
      per_second (src->buffers_out, src->thread_wall_ns));
  if (best < GPUPROF_LIMITS_INPUT_WAIT && clock)
    g_string_append_printf (ev, "; its frames wait on the clock at %s "
        "(%.0f%% of its thread's wall)", clock->path, clock_share * 100);
  if (n > 1)
    g_string_append_printf (ev, "; %u sources paced by their input", n);
  gpuprof_limits_add (c, GPUPROF_LIMIT_INPUT, src->path, 0, FALSE,
      per_second (src->buffers_out, src->thread_wall_ns),
      g_string_free (ev, FALSE), NULL)->weight = best;
}

/* Clock: an element that syncs and waited on the clock paces the run (a
 * stage that limits delivers late buffers: the sink waits on none). */
static void
clock_candidates (const GpuprofSnapshot * s, GpuprofLimitCandidates * c)
{
  gdouble w;
  const GpuprofElementRow *el = clock_element (s, &w);
  gdouble rate;

  if (!el)
    return;
  rate = per_second (el->buffers_in, el->thread_wall_ns);
  gpuprof_limits_add (c, GPUPROF_LIMIT_CLOCK, el->path, 0, FALSE, rate,
      g_strdup_printf ("waited on the clock %.1f ms (%.0f%% of its thread's "
          "wall)%s, %.1f buffers/s", el->clock_wait_ns / 1e6, w * 100,
          !g_strcmp0 (el->factory, "appsink") ? " or for the application" :
          "", rate), NULL)->weight = w;
}

/* ------------------------------------------------------------ CPUs */

/* the elements with the most work, as "a (45%), b (40%)" of the run; and
 * the GPU counterparts of those that have one */
static void
top_work (const GpuprofSnapshot * s, GString * ev, GString * gpu)
{
  guint64 total = total_self (s);
  guint i, n = 0;

  /* elements are sorted by self time, largest first */
  for (i = 0; i < s->elements->len && n < 4; i++) {
    const GpuprofElementRow *r = element_at (s, i);
    const gchar *alt = gpu_counterpart (r->factory);

    if (!r->self_ns || share (r->self_ns, total) < 0.05)
      break;
    g_string_append_printf (ev, "%s%s (%.0f%%)", n ? ", " : "", r->path,
        100.0 * share (r->self_ns, total));
    if (alt)
      g_string_append_printf (gpu, "%s%s -> %s", gpu->len ? ", " : "",
          short_name (r->path), alt);
    n++;
  }
}

/* The share of their runnable time the process's threads waited for a
 * core (the run table's run delay over it and the process's CPU) */
static gdouble
core_wait_share (const GpuprofSnapshot * s)
{
  return share (s->cpu_wait_core_ns, s->cpu_wait_core_ns +
      s->process_cpu_ns);
}

/* The CPUs: the cpu resources row (cores used over cores available). They
 * limit when nearly all the cores are used and the threads contend for
 * them: they waited for a core, or the cgroup's quota throttled them. As
 * many busy threads as cores use them all, each on a core of its own:
 * then its threads, not the CPUs, limit. */
static void
cpu_candidates (const GpuprofSnapshot * s, GpuprofLimitCandidates * c)
{
  gdouble wait = core_wait_share (s);
  gboolean contended = wait >= GPUPROF_LIMITS_CPU_WAIT
      || (s->cpu_throttled_ns && s->wall_ns
      && share (s->cpu_throttled_ns, s->wall_ns) >= GPUPROF_LIMITS_CPU_WAIT);
  guint i;

  for (i = 0; i < s->resources->len; i++) {
    const GpuprofResourceRow *r =
        &g_array_index (s->resources, GpuprofResourceRow, i);
    GString *ev, *gpu;
    gchar *advice;
    gboolean saturated, starved;

    if (g_strcmp0 (r->kind, "cpu"))
      continue;
    ev = g_string_new (r->detail && *r->detail ? r->detail : NULL);
    if (!ev->len)
      g_string_append_printf (ev, "%.0f%% of the cores available",
          r->utilisation * 100);
    if (r->utilisation >= GPUPROF_LIMITS_CPU_SATURATED && !contended)
      g_string_append (ev, "; its threads hardly waited for a core: each "
          "busy one had its own");
    gpu = g_string_new (NULL);
    g_string_append (ev, "; most work: ");
    top_work (s, ev, gpu);
    /* starved: its threads wanted the cores (their CPU and their waits
     * for one) and waited at least as long as they ran; a process that
     * mostly sleeps (paced by its input) waits on wake-ups only */
    starved = wait >= GPUPROF_LIMITS_CPU_STARVED
        && r->utilisation / (1.0 - MIN (wait, 0.99)) >=
        GPUPROF_LIMITS_CPU_SATURATED;
    saturated = contended && (r->utilisation >= GPUPROF_LIMITS_CPU_SATURATED
        || starved);
    if (saturated && r->utilisation < GPUPROF_LIMITS_CPU_SATURATED)
      advice = g_strdup_printf ("the CPUs limit, held by other load: its "
          "threads waited %.0f%% of their runnable time for a core while "
          "the process used %.0f%% of its cores; run it where it has the "
          "cores (or fewer other jobs beside it)", wait * 100,
          r->utilisation * 100);
    else if (saturated)
      advice = g_strdup_printf ("the CPUs are saturated: %s%s%srun fewer "
          "streams per machine (or give the process more cores)",
          gpu->len ? "move work to the GPU (" : "", gpu->str,
          gpu->len ? "), or " : "");
    else if (contended)
      /* its threads wait for cores it does not use: others do */
      advice = g_strdup_printf ("its threads waited %.0f%% of their "
          "runnable time for a core while the process used %.0f%% of its "
          "cores: other load on the machine slows it (or its threads "
          "outnumber the cores at moments); run it where it has the cores",
          wait * 100, r->utilisation * 100);
    else
      advice = NULL;
    gpuprof_limits_add (c, GPUPROF_LIMIT_CPU, r->name ? r->name : "cpus",
        r->utilisation, saturated, 0, g_string_free (ev, FALSE), advice);
    g_string_free (gpu, TRUE);
  }
}

/* The candidate sources of the snapshot's CPU-side rows, in no particular
 * order (the ranking orders); the GPU engines' are gpuprof-gpu-limits.c's */
static const GpuprofLimitsSource sources[] = {
  stage_candidates,
  input_candidates,
  clock_candidates,
  cpu_candidates,
};

/* ------------------------------------------------------------ ranking */

static gboolean
is_pacer (const GpuprofLimitCandidate * c)
{
  return !g_strcmp0 (c->row.kind, GPUPROF_LIMIT_INPUT)
      || !g_strcmp0 (c->row.kind, GPUPROF_LIMIT_CLOCK);
}

/* 0 saturated resources (a shared resource at its limit slows every stage
 * on it), 1 saturated stages, 2 the input, 3 the clock, 4 the rest */
static guint
group_of (const GpuprofLimitCandidate * c)
{
  if (!g_strcmp0 (c->row.kind, GPUPROF_LIMIT_INPUT))
    return 2;
  if (!g_strcmp0 (c->row.kind, GPUPROF_LIMIT_CLOCK))
    return 3;
  if (!c->saturated)
    return 4;
  return g_strcmp0 (c->row.kind, GPUPROF_LIMIT_STAGE) ? 0 : 1;
}

static gint
cmp_candidates (gconstpointer a, gconstpointer b)
{
  const GpuprofLimitCandidate *x = a, *y = b;
  guint gx = group_of (x), gy = group_of (y);

  if (gx != gy)
    return gx < gy ? -1 : 1;
  if (x->weight != y->weight)
    return x->weight > y->weight ? -1 : 1;
  return g_strcmp0 (x->row.what, y->row.what);
}

/* how busy a candidate's server is: a stage's thread, else itself */
static gdouble
load_of (const GpuprofLimitCandidate * c)
{
  return MAX (c->thread_util, c->row.utilisation);
}

static gdouble
headroom_of (gdouble u)
{
  return u > 0 ? MIN (1.0 / u, GPUPROF_LIMITS_HEADROOM_MAX) :
      GPUPROF_LIMITS_HEADROOM_MAX;
}

/* appends a sentence to a candidate's advice */
static void
advise (GpuprofLimitRow * r, gchar * sentence)
{
  gchar *old = r->advice;

  r->advice = old && *old ? g_strdup_printf ("%s; %s", sentence, old) :
      g_strdup (sentence);
  g_free (old);
  g_free (sentence);
}

static gboolean
is_kind (const GpuprofLimitCandidate * c, const gchar * kind)
{
  return !g_strcmp0 (c->row.kind, kind);
}

/* @c's utilisation once @first, a stage, is made fast: a stage's and a
 * GPU engine's as they are (the CPU work of the first is not theirs), the
 * CPUs' without the first's share of the process's CPU */
static gdouble
after_first (const GpuprofLimitCandidate * first,
    const GpuprofLimitCandidate * c)
{
  if (is_kind (c, GPUPROF_LIMIT_CPU) && is_kind (first, GPUPROF_LIMIT_STAGE))
    return c->row.utilisation * (1.0 - first->cpu_share);
  return c->row.utilisation;
}

/* The runner-up is what limits once the first is made fast: behind a
 * saturated stage, the CPUs rank by what they carry without its work */
static void
rank_runner_up (GArray * all)
{
  GpuprofLimitCandidate *first = &g_array_index (all,
      GpuprofLimitCandidate, 0);
  guint i;

  if (!first->saturated || !is_kind (first, GPUPROF_LIMIT_STAGE))
    return;
  for (i = 1; i < all->len; i++) {
    GpuprofLimitCandidate *x = &g_array_index (all, GpuprofLimitCandidate, i);
    if (is_kind (x, GPUPROF_LIMIT_CPU) && !x->saturated)
      x->weight = after_first (first, x);
  }
  qsort (&g_array_index (all, GpuprofLimitCandidate, 1), all->len - 1,
      sizeof (GpuprofLimitCandidate), cmp_candidates);
}

/* The first, when it is at its limit: speeding it up helps until the
 * runner-up limits — the rest of its thread's work, or the busiest other
 * thread's stage: at most (its thread's load) / (the runner-up's); a
 * pacing input bounds it too (it cannot go faster than the frames come).
 * A resource at its limit: the stages on it read busy because of it, so
 * its headroom is its own. */
static void
first_headroom (GpuprofLimitCandidate * first, GArray * all)
{
  const GpuprofLimitCandidate *next = NULL, *input = NULL;
  gdouble h, load, rest, other = 0;
  guint i;

  if (g_strcmp0 (first->row.kind, GPUPROF_LIMIT_STAGE)) {
    first->row.headroom = headroom_of (first->row.utilisation);
    return;
  }
  load = MAX (first->thread_util, first->row.utilisation);
  rest = MAX (load - first->row.utilisation, 0.0);
  for (i = 1; i < all->len; i++) {
    const GpuprofLimitCandidate *c = &g_array_index (all,
        GpuprofLimitCandidate, i);
    if (!g_strcmp0 (c->row.kind, GPUPROF_LIMIT_INPUT) && !input)
      input = c;
    if (is_pacer (c) || (first->thread && !g_strcmp0 (c->thread,
                first->thread)))
      continue;
    if (after_first (first, c) > other) {
      other = after_first (first, c);
      next = c;
    }
  }
  h = MIN (load / MAX (MAX (rest, other), 1.0 / GPUPROF_LIMITS_HEADROOM_MAX),
      GPUPROF_LIMITS_HEADROOM_MAX);
  if (input && input->row.rate > 0 && first->row.rate > 0)
    h = MIN (h, MAX (input->row.rate / first->row.rate, 1.0));
  first->row.headroom = h;
  if (next && other >= rest && is_kind (next, GPUPROF_LIMIT_CPU))
    advise (&first->row, g_strdup_printf ("speeding it up gives at most "
            "%.2fx: then the CPUs limit (%.0f%% of the cores without its "
            "work)", h, other * 100));
  else if (next && other >= rest)
    advise (&first->row, g_strdup_printf ("speeding it up gives at most "
            "%.2fx: then %s (%.0f%% occupied) limits", h, next->row.what,
            other * 100));
  else if (rest > 0)
    advise (&first->row, g_strdup_printf ("speeding it up gives at most "
            "%.2fx: then the rest of thread %s (%.0f%% occupied) limits; a "
            "queue before it gives it a thread of its own", h,
            first->thread, rest * 100));
}

/* the run's copy of rank 1 and 2, drops, input_bound */
static void
fill_run (GpuprofSnapshot * s)
{
  const GpuprofLimitRow *first = s->limits->len ?
      &g_array_index (s->limits, GpuprofLimitRow, 0) : NULL;
  const GpuprofLimitRow *next = s->limits->len > 1 ?
      &g_array_index (s->limits, GpuprofLimitRow, 1) : NULL;
  const GpuprofQueueRow *most = NULL;
  guint i;

  g_free (s->limit_kind);
  g_free (s->limit_what);
  g_free (s->next_kind);
  g_free (s->next_what);
  g_free (s->drops_where);
  s->limit_kind = first ? g_strdup (first->kind) : NULL;
  s->limit_what = first ? g_strdup (first->what) : NULL;
  s->limit_utilisation = first ? first->utilisation : 0;
  s->limit_headroom = first ? first->headroom : 0;
  s->limit_rate = first ? first->rate : 0;
  s->next_kind = next ? g_strdup (next->kind) : NULL;
  s->next_what = next ? g_strdup (next->what) : NULL;
  s->next_utilisation = next ? next->utilisation : 0;
  s->drops = 0;
  for (i = 0; i < s->queues->len; i++) {
    const GpuprofQueueRow *q = &g_array_index (s->queues, GpuprofQueueRow, i);
    s->drops += q->drops;
    if (q->drops && (!most || q->drops > most->drops))
      most = q;
  }
  s->drops_where = most ? g_strdup (most->path) : NULL;
  /* the input paces the run only where nothing inside limits it */
  s->input_bound = first && !g_strcmp0 (first->kind, GPUPROF_LIMIT_INPUT);
}

void
gpuprof_limits_rank (GpuprofSnapshot * s, GpuprofLimitCandidates * c)
{
  GArray *all = c->all;
  GpuprofLimitCandidate *first;
  const GpuprofLimitCandidate *busiest = NULL;
  guint i;

  g_array_set_size (s->limits, 0);
  g_array_sort (all, cmp_candidates);
  if (all->len > 1)
    rank_runner_up (all);
  /* a pacer's utilisation is the busiest one's (a stage's: its thread's,
   * the stages on it share it): how much of the pace the pipeline uses */
  for (i = 0; i < all->len; i++) {
    const GpuprofLimitCandidate *x = &g_array_index (all,
        GpuprofLimitCandidate, i);
    if (!is_pacer (x) && (!busiest || load_of (x) > load_of (busiest)))
      busiest = x;
  }
  for (i = 0; i < all->len; i++) {
    GpuprofLimitCandidate *x = &g_array_index (all, GpuprofLimitCandidate, i);
    if (is_pacer (x))
      x->row.utilisation = busiest ? load_of (busiest) : 0;
    x->row.headroom = headroom_of (x->row.utilisation);
  }
  if (all->len) {
    first = &g_array_index (all, GpuprofLimitCandidate, 0);
    if (first->saturated)
      first_headroom (first, all);
    else if (is_pacer (first) && busiest)
      advise (&first->row, g_strdup_printf ("not limited: %.1fx headroom "
              "(the busiest, %s, is %.0f%% %s%s)%s%s%s",
              first->row.headroom, busiest->row.what,
              busiest->row.utilisation * 100,
              is_kind (busiest, GPUPROF_LIMIT_STAGE) ? "occupied" : "used",
              busiest->thread_util > busiest->row.utilisation + 0.005 ?
              ", its thread more" : "",
              !g_strcmp0 (first->row.kind, GPUPROF_LIMIT_CLOCK) ?
              "; sync=false on " : "",
              !g_strcmp0 (first->row.kind, GPUPROF_LIMIT_CLOCK) ?
              short_name (first->row.what) : "",
              !g_strcmp0 (first->row.kind, GPUPROF_LIMIT_CLOCK) ?
              " runs it as fast as it can" : ""));
    else if (is_pacer (first))
      advise (&first->row, g_strdup ("not limited: no stage did "
              "measurable work"));
    else if (is_kind (first, GPUPROF_LIMIT_CPU) && first->row.advice
        && *first->row.advice)
      advise (&first->row, g_strdup ("not saturated by this process"));
    else
      advise (&first->row, g_strdup_printf ("not saturated (%.0f%% %s): "
              "what paces the run is not measured here (the application, "
              "I/O, a device)", first->row.utilisation * 100,
              is_kind (first, GPUPROF_LIMIT_STAGE) ? "occupied" : "used"));
  }
  for (i = 0; i < all->len && i < MAX_ROWS; i++) {
    GpuprofLimitCandidate *x = &g_array_index (all, GpuprofLimitCandidate, i);
    x->row.rank = i + 1;
    g_array_append_val (s->limits, x->row);
    memset (&x->row, 0, sizeof (x->row));       /* moved */
  }
  candidates_free (c);
  fill_run (s);
}

void
gpuprof_limits_builtin_candidates (const GpuprofSnapshot * s,
    GpuprofLimitCandidates * c)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sources); i++)
    sources[i] (s, c);
}
