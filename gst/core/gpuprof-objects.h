/* gpuprof: stable ids, paths and roles for the elements and pads seen.
 *
 * An element or pad is registered on its first activity, under the registry
 * lock; afterwards the hooks find its record through a per-thread cache (no
 * lock). Records outlive their GstObject so a removed element still appears
 * in the report; a destroyed pad's record is unlinked from the caches through
 * a generation counter. Once its object is destroyed and what it measured was
 * reported, gpuprof_objects_sweep() frees the record.
 *
 * An element's pipeline is its top-level bin. An element seen before it has
 * one (a pad touched before gst_bin_add) has none yet (pipeline_id 0): it is
 * resolved again when it is added to a bin, changes state or streams, and so
 * is an element moved to another bin.
 *
 * A record is the object's identity (id, path, role, pads) plus one typed
 * slot per module that measures it: the modules allocate their slots in the
 * callbacks given to gpuprof_objects_new() and free them there. Core never
 * looks inside a slot; the types are only named here, each in its module's
 * header (gst/measure/).
 */
#pragma once

#include "gpuprof-api.h"

#include <gst/gst.h>
#include <string.h>

#include "gpuprof-thread.h"

G_BEGIN_DECLS

/* the modules' slots (gst/measure/) */
typedef struct _GpuprofElementStats GpuprofElementStats;
typedef struct _GpuprofQueueElement GpuprofQueueElement;
typedef struct _GpuprofQueue GpuprofQueue;
typedef struct _GpuprofBatchElement GpuprofBatchElement;
typedef struct _GpuprofStreamElement GpuprofStreamElement;
typedef struct _GpuprofAsync GpuprofAsync;
typedef struct _GpuprofWorkers GpuprofWorkers;

typedef enum
{
  GPUPROF_ROLE_FILTER,
  GPUPROF_ROLE_SOURCE,
  GPUPROF_ROLE_SINK,
  GPUPROF_ROLE_QUEUE,
  GPUPROF_ROLE_AGGREGATOR,
} GpuprofRole;

typedef struct
{
  guint32 id;
  gchar *name;
  GstElement *element;          /* weak: NULL once destroyed; registry lock */
  guint64 playing_since;        /* its run went to PLAYING (tracer clock), 0:
                                 * not yet; a run with no buffer is still
                                 * reported (atomic) */
  gboolean detached;            /* a bin taken out of a pipeline (a removed
                                 * camera's source bin): what its elements
                                 * measure is never reported; registry lock */
} GpuprofPipeline;

struct _GpuprofElement
{
  guint32 id;                   /* 1-based, never reused */
  gchar *path;                  /* "pipeline0/infer" */
  gchar *factory;
  GpuprofRole role;
  GpuprofPipeline *pipeline;    /* NULL: no top-level bin yet; registry lock */
  guint32 pipeline_id;          /* its id, 0 if none: read by hooks (atomic) */
  gpointer resolved_parent;     /* parent when resolved, compared only */
  GstElement *element;          /* weak: NULL once destroyed */
  GWeakRef alive;               /* the same, empty from its last unref on
                                 * (gpuprof_objects_ref_element) */
  guint32 color;                /* 0xAARRGGBB, stable per path */
  gint settled;                 /* what needs the element's lock was read
                                 * (gpuprof_objects_element_settle; atomic) */
  gboolean waits_on_clock;      /* synced sink / live source */
  gboolean task_pushes;         /* pushes from its own task (muxers,
                                 * aggregators): its chain calls only hand
                                 * over or wait (atomic: set on the task) */
  gint pool_user;               /* made a task pool for a task runner on
                                 * GLib's shared pool (videoconvert
                                 * n-threads, compositor): GLib's pool
                                 * threads work for it (atomic) */
  GPtrArray *pads;              /* GpuprofPad*, its pads; registry lock */
  /* it left a pipeline while that one's run went on (removed from it, or
   * destroyed in it: docs/tracer.md#removed): the pipeline, until what it
   * measured there is folded into its removed totals
   * (gpuprof_objects_elements_of()); registry lock */
  GpuprofPipeline *left;
  guint64 gone_in, gone_out;    /* buffers of this run through its sink and
                                 * src pads destroyed meanwhile (a funnel's
                                 * released request pads); registry lock */
  gboolean folded;              /* folded since, and in no pipeline again:
                                 * its figures start again when it joins
                                 * one; registry lock */

  /* slots, allocated by their modules when the record is made */
  GpuprofElementStats *stats;   /* self time, calls (gpuprof-stats.h) */
  GpuprofQueueElement *queue;   /* queue elements only: their FIFOs and
                                 * how they tell "full" (gpuprof-queue.h) */
  GpuprofBatchElement *batch;   /* batches formed or processed
                                 * (gpuprof-batch.c) */
  GpuprofStreamElement *stream; /* frames followed per source
                                 * (gpuprof-streams.c) */
  GpuprofAsync *async;          /* its buffers leave on a thread it owns,
                                 * outside its chain calls (gpuprof-async.h);
                                 * set once, read by hooks (atomic) */
  GpuprofWorkers *workers;      /* threads it created that run none of its
                                 * calls, when it is not asynchronous
                                 * (gpuprof-workers.h); set once (atomic) */
  gpointer nvtx_domain;         /* nvtxDomainHandle_t (gpuprof-nvtx.h) */
};

struct _GpuprofPad
{
  guint32 id;
  gchar *name;                  /* "sink_0" */
  GstPadDirection direction;
  GpuprofElement *element;      /* NULL: proxy/ghost pad, ignored */
  /* slots, set by their modules when the record is made */
  GpuprofQueue *queue;          /* pad of a queue element: its FIFO */
  gpointer nvtx_msg;            /* registered "element:pad" string */
  guint64 seq;                  /* buffers through the pad: written only by
                                 * the thread holding the pad's stream (one at
                                 * a time), read by reports; relaxed atomics */
  guint64 seq_base;             /* seq when the current run started */
  GstEvent *last_eos;           /* the last EOS and segment that left it, */
  GstEvent *last_segment;       /* reffed (gpuprof-hooks.c; atomic) */
  gboolean destroyed;           /* its GstPad is gone; registry lock */
};

typedef struct _GpuprofObjects GpuprofObjects;

/**
 * GpuprofObjectsFuncs:
 * @element_init: a new element record: its slots are allocated here
 * @pad_init: a new pad record of an element (not a ghost or proxy pad)
 * @element_resolved: (nullable): an element seen before it was in a
 *   pipeline got one (NVTX names its rows by the path)
 * @element_pending: whether the element measured something of its run not
 *   reported yet: the sweep keeps its record until it is
 * @element_fini: the record is about to be freed: its slots go here
 * @element_settled: (nullable): the element's first state change
 *   (gpuprof_objects_element_settle()): what reading takes its lock (its
 *   properties) is read now. Called without the registry lock.
 * @element_rejoined: (nullable): an element whose figures were folded
 *   into a pipeline's removed totals joined a pipeline again: its figures
 *   start from zero (its pads' counts already do)
 *
 * The modules' part of a record's life. Each is called with the registry
 * lock held (but @element_settled): short, no hook-visible work, no call
 * into the registry, and no GStreamer lock taken (a record may be made in
 * a hook that GStreamer runs holding a pad's lock).
 */
typedef struct
{
  void (*element_init) (GpuprofElement * e, gpointer user_data);
  void (*pad_init) (GpuprofPad * p, gpointer user_data);
  void (*element_resolved) (GpuprofElement * e, gpointer user_data);
  gboolean (*element_pending) (GpuprofElement * e, gpointer user_data);
  void (*element_fini) (GpuprofElement * e, gpointer user_data);
  void (*element_settled) (GpuprofElement * e, gpointer user_data);
  void (*element_rejoined) (GpuprofElement * e, gpointer user_data);
} GpuprofObjectsFuncs;

GPUPROF_API
GpuprofObjects *gpuprof_objects_new (const GpuprofObjectsFuncs * funcs,
    gpointer user_data);
GPUPROF_API
void gpuprof_objects_free (GpuprofObjects * o);

GPUPROF_API
GpuprofPad *gpuprof_objects_pad_slow (GpuprofObjects * o, GpuprofThread * t,
    GstPad * pad);
/* the element's record, made without any GStreamer lock if new */
GpuprofElement *gpuprof_objects_element (GpuprofObjects * o,
    GstElement * element);
GPUPROF_API
GpuprofElement *gpuprof_objects_element_peek (GstElement * element);
/* the same, and once what reading takes the element's lock (properties):
 * for its state-change hooks only, which GStreamer runs outside any
 * object lock */
GpuprofElement *gpuprof_objects_element_settle (GpuprofObjects * o,
    GstElement * element);
GpuprofPipeline *gpuprof_objects_pipeline (GpuprofObjects * o,
    GstElement * pipeline);
/* TRUE when the destroyed object was an element whose record a sweep can
 * free (it is in no pipeline that will report it) */
gboolean gpuprof_objects_destroyed (GpuprofObjects * o, GstObject * object);
/* element (a bin: and all it holds) may have a new top-level bin */
void gpuprof_objects_reparented (GpuprofObjects * o, GstElement * element);
/* An element streaming with no pipeline yet: its parent changed since it
 * was last resolved? Then resolve again. Returns its pipeline id. */
guint32 gpuprof_objects_resolve_streaming (GpuprofObjects * o,
    GpuprofElement * e);

/* Frees the records of destroyed objects whose measurements were reported
 * (or can never be: no pipeline), pipelines destroyed with no element left,
 * and paths replaced since the last sweep. The caller guarantees that no
 * copy of the lists (gpuprof_objects_elements, _pipelines) is in use. */
void gpuprof_objects_sweep (GpuprofObjects * o, GArray * freed_element_ids,
    GArray * freed_pad_ids);
/* live records, for tests and benchmarks */
void gpuprof_objects_count (GpuprofObjects * o, guint * elements,
    guint * pads, guint * pipelines);
/* copies made under the registry lock, for other threads (trace writer) */
gchar *gpuprof_objects_dup_element_path (GpuprofObjects * o, guint32 id);
gchar *gpuprof_objects_dup_pad_name (GpuprofObjects * o, guint32 id);
gchar *gpuprof_objects_dup_last_pipeline_name (GpuprofObjects * o);

/* copies of the lists, taken under the registry lock; the pipelines are
 * those that report: top-level (or destroyed), not a detached bin */
GPtrArray *gpuprof_objects_elements (GpuprofObjects * o);
GPtrArray *gpuprof_objects_pipelines (GpuprofObjects * o);
/* Under one hold of the registry lock: the elements of @pl into @members,
 * and those that left @pl's run with figures not folded yet into @left
 * (nullable; their mark is cleared: the caller folds them now). A
 * snapshot that takes both sees each element once, as a row or folded,
 * whenever it leaves. */
void gpuprof_objects_elements_of (GpuprofObjects * o, GpuprofPipeline * pl,
    GPtrArray * members, GPtrArray * left);
/* an element left @pl's run and was not folded yet */
gboolean gpuprof_objects_has_left (GpuprofObjects * o, GpuprofPipeline * pl);
void gpuprof_objects_refresh_roles (GpuprofObjects * o);
/* buffers through its sink (@in) and src pads (@out) in this run */
void gpuprof_objects_pad_buffers (GpuprofObjects * o, GpuprofElement * e,
    guint64 * in, guint64 * out);
/* The element with id @id, NULL when none is (or its record was freed):
 * lock-free, for callbacks that know only the id (CUPTI's, batch ids). Ids
 * go up to GPUPROF_OBJECTS_MAX_ID, the element bits of the GPU's and the
 * batches' ids; later elements are not found here (said once). */
#define GPUPROF_OBJECTS_MAX_ID ((1u << 24) - 1)
GpuprofElement *gpuprof_objects_element_by_id (GpuprofObjects * o,
    guint32 id);
/* a ref of the element, NULL once its last reference is being dropped:
 * what a snapshot reads of an element (links, roles, properties, caps)
 * goes through it, never e->element, which stays set until the
 * object-destroyed hook, late in its finalize. O may be NULL */
GstElement *gpuprof_objects_ref_element (GpuprofObjects * o,
    GpuprofElement * e);
/* buffers through e's src pad named pad_name in this run */
guint64 gpuprof_objects_src_pad_buffers (GpuprofObjects * o,
    GpuprofElement * e, const gchar * pad_name);
void gpuprof_objects_new_run (GpuprofObjects * o, GpuprofElement * e);
/* each pad of e: id, direction and buffers this run, for the stall
 * watchdog (docs/live.md); a copy taken under the registry lock */
typedef struct
{
  guint32 id;
  GstPadDirection direction;
  guint64 buffers;
  const gchar *name;            /* valid while e's record is */
} GpuprofPadCount;
void gpuprof_objects_pad_counts (GpuprofObjects * o, GpuprofElement * e,
    GArray * out);

/* The next sequence number of a pad, for n buffers: one thread at a time
 * streams through a pad, so no atomic read-modify-write is needed. */
static inline guint64
gpuprof_pad_advance (GpuprofPad * p, guint n)
{
  guint64 s = __atomic_load_n (&p->seq, __ATOMIC_RELAXED) + n;

  __atomic_store_n (&p->seq, s, __ATOMIC_RELAXED);
  return s;
}
const gchar *gpuprof_role_name (GpuprofRole role);

GPUPROF_API gint gpuprof_objects_generation;

/* The hot-path lookup: a per-thread cache in front of the registry, two
 * slots a pad, both from one multiplicative hash. Pads lie a few hundred
 * bytes apart: the product's top bits spread them (all of them: a wider
 * shift left 3/4 of the cache unreachable) and are the first slot; the
 * second is the first xor the next bits, made odd so it is never the first.
 * Which pads share a slot is the heap's luck (22 pads in 256 slots do, more
 * often than not): with the neighbour (slot ^ 1) as the second, three pads
 * of one pair evicted each other at every buffer; with two independent
 * choices that takes three pads whose two slots are alike. */
static inline guint64
gpuprof_objects_cache_hash (gconstpointer pad)
{
  return (guint64) (guintptr) pad * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
}

static inline guint
gpuprof_objects_cache_slot (gconstpointer pad)
{
  return (guint) (gpuprof_objects_cache_hash (pad) >>
      (64 - GPUPROF_PAD_CACHE_BITS));
}

static inline guint
gpuprof_objects_cache_slot2 (gconstpointer pad)
{
  guint64 h = gpuprof_objects_cache_hash (pad);

  return (guint) (h >> (64 - GPUPROF_PAD_CACHE_BITS)) ^
      (((guint) (h >> (64 - 2 * GPUPROF_PAD_CACHE_BITS)) &
          (GPUPROF_PAD_CACHE - 1)) | 1);
}

static inline GpuprofPad *
gpuprof_objects_pad (GpuprofObjects * o, GpuprofThread * t, GstPad * pad)
{
  guint slot = gpuprof_objects_cache_slot (pad);
  gint gen = g_atomic_int_get (&gpuprof_objects_generation);

  if (G_UNLIKELY (t->cache_generation != gen)) {
    memset (t->cache, 0, sizeof (t->cache));
    t->cache_generation = gen;
  }
  if (G_LIKELY (t->cache[slot].key == pad))
    return t->cache[slot].pad;
  slot = gpuprof_objects_cache_slot2 (pad);
  if (t->cache[slot].key == pad)
    return t->cache[slot].pad;
  return gpuprof_objects_pad_slow (o, t, pad);
}

G_END_DECLS
