/* gpuprof: CUPTI, loaded at run time — see gpuprof-cupti.h.
 *
 * The CUPTI headers are used for types only (record layouts, enums); no CUDA
 * library is linked. Without the headers this file builds a stub that reports
 * why GPU attribution is off.
 *
 * Session: subscribe (to detect another CUPTI client), system thread ids,
 * monotonic timestamp callback, buffer callbacks, then the activity kinds.
 * Two paths (GpuprofCuptiPath):
 *  - callback (default): the subscriber's callback is enabled for the launch,
 *    copy and memset API ids only (driver and runtime: nvcodec calls the
 *    driver, most applications the runtime) and stores, at API entry, what
 *    the launching thread does (gpuprof-gpu-launch.c); activity kinds for GPU
 *    work only. No API or external correlation records, no join.
 *  - activity: both API kinds and external correlation: external correlation
 *    records only come with an API kind enabled (measured on the GPU host).
 * Both paths enable the callbacks of the synchronizing calls
 * (gpuprof_sync_ids in gpuprof-cupti-ids.h): the time a thread waits on
 * the GPU (gpuprof-gpu-wait.c); and of the event records
 * (gpuprof_record_ids), which close the recording thread's batch
 * (gpuprof-gpu-hotpath.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-cupti.h"
#include "gpuprof-clock.h"
#include "gpuprof-gpu.h"
#include "gpuprof-gpu-launch.h"
#include "gpuprof-gpu-wait.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

GST_DEBUG_CATEGORY_STATIC (gpuprof_cupti_debug);
#define GST_CAT_DEFAULT gpuprof_cupti_debug

#define REASON_PREFIX "GPU attribution off: "

static void
init_debug (void)
{
  static gsize done;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gpuprof_cupti_debug, "gpuprofcupti", 0,
        "gpuprof CUPTI loader");
    g_once_init_leave (&done, 1);
  }
}

/* HAVE_CUPTI_HEADERS: config.h, from the cuda-dir option (meson.build) */
#if !HAVE_CUPTI_HEADERS

gboolean
gpuprof_cupti_start (const GpuprofCuptiSettings * settings, gchar ** reason)
{
  init_debug ();
  if (reason)
    *reason = g_strdup (settings && settings->mode == GPUPROF_CUPTI_OFF ?
        REASON_PREFIX "cupti=off" :
        REASON_PREFIX "gpuprof was built without the CUPTI headers");
  return FALSE;
}

void
gpuprof_cupti_stop (void)
{
}

gboolean
gpuprof_cupti_active (void)
{
  return FALSE;
}

void
gpuprof_cupti_flush (gboolean forced)
{
}

guint64
gpuprof_cupti_dropped (void)
{
  return 0;
}

GpuprofCuptiPath
gpuprof_cupti_path (void)
{
  return GPUPROF_CUPTI_PATH_CALLBACK;
}

#else /* HAVE_CUPTI_HEADERS */

#include <dlfcn.h>
#include <cupti.h>

#include "gpuprof-cupti-ids.h"

/* ---- the function table ---- */

typedef struct
{
  /* required */
  CUptiResult (*GetResultString) (CUptiResult, const char **);
  CUptiResult (*ActivityEnable) (CUpti_ActivityKind);
  CUptiResult (*ActivityDisable) (CUpti_ActivityKind);
  CUptiResult (*ActivityRegisterCallbacks) (CUpti_BuffersCallbackRequestFunc,
      CUpti_BuffersCallbackCompleteFunc);
  CUptiResult (*ActivityGetNextRecord) (uint8_t *, size_t, CUpti_Activity **);
  CUptiResult (*ActivityFlushAll) (uint32_t);
  CUptiResult (*ActivityGetNumDroppedRecords) (CUcontext, uint32_t, size_t *);
  CUptiResult (*ActivityPushExternalCorrelationId)
    (CUpti_ExternalCorrelationKind, uint64_t);
  CUptiResult (*ActivityPopExternalCorrelationId)
    (CUpti_ExternalCorrelationKind, uint64_t *);
  /* optional */
  CUptiResult (*GetVersion) (uint32_t *);
  CUptiResult (*Subscribe) (CUpti_SubscriberHandle *, CUpti_CallbackFunc,
      void *);
  CUptiResult (*Unsubscribe) (CUpti_SubscriberHandle);
  CUptiResult (*SetThreadIdType) (CUpti_ActivityThreadIdType);
  CUptiResult (*ActivityRegisterTimestampCallback) (CUpti_TimestampCallbackFunc);
  CUptiResult (*GetTimestamp) (uint64_t *);
  CUptiResult (*EnableCallback) (uint32_t, CUpti_SubscriberHandle,
      CUpti_CallbackDomain, CUpti_CallbackId);
  CUptiResult (*GetCallbackName) (CUpti_CallbackDomain, uint32_t,
      const char **);
} CuptiTable;

static CuptiTable cupti;
static void *cupti_module;

#define REQUIRED(name) { "cupti" #name, G_STRUCT_OFFSET (CuptiTable, name), TRUE }
#define OPTIONAL(name) { "cupti" #name, G_STRUCT_OFFSET (CuptiTable, name), FALSE }

static const struct
{
  const gchar *symbol;
  glong offset;
  gboolean required;
} symbols[] = {
  REQUIRED (GetResultString),
  REQUIRED (ActivityEnable),
  REQUIRED (ActivityDisable),
  REQUIRED (ActivityRegisterCallbacks),
  REQUIRED (ActivityGetNextRecord),
  REQUIRED (ActivityFlushAll),
  REQUIRED (ActivityGetNumDroppedRecords),
  REQUIRED (ActivityPushExternalCorrelationId),
  REQUIRED (ActivityPopExternalCorrelationId),
  OPTIONAL (GetVersion),
  OPTIONAL (Subscribe),
  OPTIONAL (Unsubscribe),
  OPTIONAL (SetThreadIdType),
  OPTIONAL (ActivityRegisterTimestampCallback),
  OPTIONAL (GetTimestamp),
  OPTIONAL (EnableCallback),
  OPTIONAL (GetCallbackName),
};

/* ---- state, guarded by 'lock' (the record path takes none of it) ---- */

static GMutex lock;
static gint refcount;
static gboolean load_tried;
static gchar *load_error;       /* why CUPTI cannot be used at all */
static gboolean active;         /* a session is running */
static CUpti_SubscriberHandle subscriber;
static GpuprofCuptiSettings settings;
static gchar *settings_library;
static gint64 ts_offset;        /* added to CUPTI timestamps without a callback */
static gboolean have_ts_callback;
static GThread *collector;
static GCond collector_cond;
static gboolean collector_stop;
static guint64 dropped;         /* atomically updated from the record path */
static gboolean atexit_done;

static const CUpti_ActivityKind required_kind =
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
static GpuprofCuptiPath path_on;      /* the running session's path */
static const CUpti_ActivityKind other_kinds[] = {
  CUPTI_ACTIVITY_KIND_MEMCPY,
  CUPTI_ACTIVITY_KIND_MEMCPY2,
  CUPTI_ACTIVITY_KIND_MEMSET,
  /* the activity path only (first N_GPU_KINDS are GPU work) */
  CUPTI_ACTIVITY_KIND_RUNTIME,
  CUPTI_ACTIVITY_KIND_DRIVER,
  CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
};

#define N_GPU_KINDS 3

/* Diagnostics only (docs/gpu.md): GPUPROF_CUPTI_SKIP=driver,runtime,...
 * leaves activity kinds off, and flush,ts,sync,record leave the periodic
 * flush, the timestamp callback, the synchronize or the event record
 * callbacks off, to measure what each one costs. */
static gboolean
skipped (const gchar * name)
{
  const gchar *skip = g_getenv ("GPUPROF_CUPTI_SKIP");
  gchar **list;
  gboolean found;

  if (!skip || !*skip)
    return FALSE;
  list = g_strsplit (skip, ",", -1);
  found = g_strv_contains ((const gchar * const *) list, name);
  g_strfreev (list);
  if (found)
    GST_WARNING ("GPUPROF_CUPTI_SKIP: %s left off", name);
  return found;
}

static gboolean
kind_skipped (CUpti_ActivityKind kind)
{
  static const struct
  {
    CUpti_ActivityKind kind;
    const gchar *name;
  } names[] = {
    {CUPTI_ACTIVITY_KIND_MEMCPY, "memcpy"},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "memcpy2"},
    {CUPTI_ACTIVITY_KIND_MEMSET, "memset"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, "runtime"},
    {CUPTI_ACTIVITY_KIND_DRIVER, "driver"},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "external"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++)
    if (names[i].kind == kind)
      return skipped (names[i].name);
  return FALSE;
}

static const gchar *
result_string (CUptiResult r)
{
  const char *s = NULL;

  if (cupti.GetResultString && cupti.GetResultString (r, &s) == CUPTI_SUCCESS
      && s)
    return s;
  return "unknown CUPTI error";
}

static gboolean
load_library_locked (void)
{
  const gchar *env = g_getenv ("GPUPROF_CUPTI_LIBRARY");
  const gchar *candidates[] = {
    settings_library ? settings_library : env,
    "libcupti.so.13",
    "/usr/local/cuda/lib64/libcupti.so.13",
    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
  };
  GString *errors = g_string_new (NULL);
  guint i;

  if (load_tried)
    return load_error == NULL;
  load_tried = TRUE;

  /* an explicit path is the only candidate: no silent fallback to another */
  for (i = 0; i < G_N_ELEMENTS (candidates) && !cupti_module; i++) {
    if (!candidates[i])
      continue;
    cupti_module = dlopen (candidates[i], RTLD_NOW | RTLD_LOCAL);
    if (!cupti_module && errors->len == 0)
      g_string_append (errors, dlerror ());
    if (i == 0 && !cupti_module)
      break;
  }
  if (!cupti_module) {
    load_error = g_strdup_printf ("CUPTI not loadable (%s)", errors->str);
    g_string_free (errors, TRUE);
    return FALSE;
  }
  g_string_free (errors, TRUE);

  for (i = 0; i < G_N_ELEMENTS (symbols); i++) {
    gpointer f = dlsym (cupti_module, symbols[i].symbol);
    G_STRUCT_MEMBER (gpointer, &cupti, symbols[i].offset) = f;
    if (!f && symbols[i].required) {
      load_error = g_strdup_printf ("CUPTI has no %s", symbols[i].symbol);
      return FALSE;
    }
    if (!f)
      GST_INFO ("optional CUPTI symbol %s not found", symbols[i].symbol);
  }
  if (cupti.GetVersion) {
    uint32_t v = 0;
    cupti.GetVersion (&v);
    GST_INFO ("CUPTI API version %u", v);
  }
  return TRUE;
}

/* ---- record path ---- */

static uint64_t CUPTIAPI
monotonic_timestamp (void)
{
  return gpuprof_clock_monotonic_ns ();
}

static inline guint64
to_monotonic (uint64_t ts)
{
  if (ts == 0 || have_ts_callback)
    return ts;
  return (guint64) ((gint64) ts + ts_offset);
}

static void CUPTIAPI
buffer_requested (uint8_t ** buffer, size_t * size, size_t * max_records)
{
  gsize bytes = settings.buffer_size ? settings.buffer_size : 4 << 20;

  /* records must be 8-byte aligned */
  *buffer = g_malloc (bytes);
  *size = bytes;
  *max_records = 0;
}

/* the fields every GPU record kind has, under the same names */
#define COPY_COMMON(op, rec) G_STMT_START {        \
    (op).correlation_id = (rec)->correlationId;     \
    (op).device_id = (rec)->deviceId;               \
    (op).context_id = (rec)->contextId;             \
    (op).stream_id = (rec)->streamId;               \
    (op).graph_id = (rec)->graphId;                 \
    (op).start = to_monotonic ((rec)->start);       \
    (op).end = to_monotonic ((rec)->end);           \
  } G_STMT_END

/* the callback path hands GPU records over in batches: one lock each */
#define OP_BATCH 256

typedef struct
{
  GpuprofGpuOp ops[OP_BATCH];
  guint n;
} OpBatch;

static void
batch_flush (OpBatch * b)
{
  if (b->n)
    gpuprof_gpu_add_launched_ops (b->ops, b->n);
  b->n = 0;
}

/* @batch: NULL on the activity path */
static void
handle_record (const CUpti_Activity * r, OpBatch * batch)
{
  GpuprofGpuOp op = { 0, };

  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:{
      const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *) r;
      op.kind = GPUPROF_GPU_OP_KERNEL;
      COPY_COMMON (op, k);
      op.name = k->name;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY:{
      const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *) r;
      op.kind = GPUPROF_GPU_OP_MEMCPY;
      COPY_COMMON (op, m);
      op.bytes = m->bytes;
      op.copy_kind = m->copyKind;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2:{
      const CUpti_ActivityMemcpyPtoP4 *m =
          (const CUpti_ActivityMemcpyPtoP4 *) r;
      op.kind = GPUPROF_GPU_OP_MEMCPY;
      COPY_COMMON (op, m);
      op.bytes = m->bytes;
      op.copy_kind = m->copyKind;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET:{
      const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *) r;
      op.kind = GPUPROF_GPU_OP_MEMSET;
      COPY_COMMON (op, m);
      op.bytes = m->bytes;
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:{
      const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *) r;
      gpuprof_gpu_add_api (a->correlationId, a->threadId, a->cbid,
          to_monotonic (a->start), to_monotonic (a->end));
      return;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:{
      const CUpti_ActivityExternalCorrelation *x =
          (const CUpti_ActivityExternalCorrelation *) r;
      gint ch = (gint) x->externalKind - CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
      /* other kinds belong to other tools in the process */
      if (ch >= 0 && ch < GPUPROF_GPU_N_CHANNELS)
        gpuprof_gpu_add_external (x->correlationId, (GpuprofGpuChannel) ch,
            x->externalId);
      return;
    }
    default:
      return;
  }
  if (batch) {
    batch->ops[batch->n++] = op;
    if (batch->n == OP_BATCH)
      batch_flush (batch);
  } else {
    gpuprof_gpu_add_op (&op);
  }
}

static void CUPTIAPI
buffer_completed (CUcontext ctx, uint32_t stream_id, uint8_t * buffer,
    size_t size, size_t valid_size)
{
  CUpti_Activity *record = NULL;
  size_t n_dropped = 0;
  OpBatch *batch = NULL;

  if (path_on == GPUPROF_CUPTI_PATH_CALLBACK)
    batch = g_new (OpBatch, 1);  /* per buffer, not on the stack: 20 KiB */
  if (batch)
    batch->n = 0;
  if (valid_size > 0) {
    while (cupti.ActivityGetNextRecord (buffer, valid_size,
            &record) == CUPTI_SUCCESS)
      handle_record (record, batch);
  }
  if (batch) {
    batch_flush (batch);
    g_free (batch);
  }
  if (cupti.ActivityGetNumDroppedRecords (ctx, stream_id,
          &n_dropped) == CUPTI_SUCCESS && n_dropped) {
    gpuprof_gpu_add_dropped (n_dropped);
    __atomic_fetch_add (&dropped, (guint64) n_dropped, __ATOMIC_RELAXED);
  }
  g_free (buffer);
  gpuprof_gpu_settle (gpuprof_clock_monotonic_ns (), GPUPROF_GPU_SETTLE_NORMAL);
}

/* ---- hot path backend: one stack per channel, CUSTOM0 + channel ---- */

static void
backend_push (GpuprofGpuChannel channel, guint64 id)
{
  cupti.ActivityPushExternalCorrelationId ((CUpti_ExternalCorrelationKind)
      (CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 + channel), id);
}

static void
backend_pop (GpuprofGpuChannel channel)
{
  uint64_t last;

  cupti.ActivityPopExternalCorrelationId ((CUpti_ExternalCorrelationKind)
      (CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 + channel), &last);
}

static const GpuprofGpuBackend cupti_backend = { backend_push, backend_pop };

/* callback path: the thread slots are all it reads, no id stack to keep */
static const GpuprofGpuBackend callback_backend = { NULL, NULL };

/* ---- collector: periodic flush of completed buffers ---- */

static gpointer
collector_main (gpointer data)
{
  guint period = settings.flush_period_ms ? settings.flush_period_ms : 100;
  gboolean flush = !skipped ("flush");

  g_mutex_lock (&lock);
  while (!collector_stop) {
    gint64 until = g_get_monotonic_time () + period * G_TIME_SPAN_MILLISECOND;
    if (g_cond_wait_until (&collector_cond, &lock, until) || collector_stop)
      continue;
    g_mutex_unlock (&lock);
    /* completed buffers only: a forced flush mid-run would hand over
     * records of kernels still running */
    if (flush)
      cupti.ActivityFlushAll (0);
    gpuprof_gpu_settle (gpuprof_clock_monotonic_ns (),
        GPUPROF_GPU_SETTLE_NORMAL);
    g_mutex_lock (&lock);
  }
  g_mutex_unlock (&lock);
  return NULL;
}

/* ---- session ---- */

/* the ids that are not launches (gpuprof_sync_ids, gpuprof_record_ids): a
 * byte per id, driver then runtime (their domains are 1 and 2), saying
 * which kind; 0 for a launch: the cheapest test on the launch path */
#define SYNC_IDS 1024
G_STATIC_ASSERT (CUPTI_CB_DOMAIN_RUNTIME_API ==
    CUPTI_CB_DOMAIN_DRIVER_API + 1);

typedef enum
{
  NOT_LAUNCH_SYNC = 1,          /* a host wait on the GPU */
  NOT_LAUNCH_EVENT_RECORD = 2,  /* closes the thread's batch */
} NotLaunch;

static guint8 sync_tab[2][SYNC_IDS];

/* @domain: driver or runtime. Returns: 0 for a launch id, else its
 * NotLaunch */
static inline guint
not_launch_kind (CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
  return cbid < SYNC_IDS ?
      sync_tab[domain - CUPTI_CB_DOMAIN_DRIVER_API][cbid] : 0;
}

static void CUPTIAPI
subscriber_callback (void *userdata, CUpti_CallbackDomain domain,
    CUpti_CallbackId cbid, const void *data)
{
  const CUpti_CallbackData *cd = data;
  guint not_launch;

  /* only launch/copy/memset ids (callback path), the synchronizing ids and
   * the event records (both paths) are enabled */
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API
      && domain != CUPTI_CB_DOMAIN_RUNTIME_API)
    return;
  not_launch = not_launch_kind (domain, cbid);
  if (G_UNLIKELY (not_launch)) {
    gboolean runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;

    if (not_launch == NOT_LAUNCH_EVENT_RECORD) {
      /* once per call (a runtime record's driver record closes it again:
       * harmless) */
      if (cd->callbackSite == CUPTI_API_EXIT)
        gpuprof_gpu_close_batch ();
    } else if (cd->callbackSite == CUPTI_API_ENTER) {
      gpuprof_gpu_sync_enter (runtime, cbid);
    } else {
      gpuprof_gpu_sync_exit (runtime, cbid);
    }
    return;
  }
  /* CUPTI calls at exit too (no way to ask for entry only): nothing to do */
  if (cd->callbackSite == CUPTI_API_ENTER)
    gpuprof_gpu_launch_enter (cd->correlationId);
}

/* Marks @ids as @kind in sync_tab and enables their callbacks. Returns how
 * many were enabled. */
static guint
enable_not_launch (const GpuprofCallbackId * ids, guint n, NotLaunch kind)
{
  guint i, n_on = 0;

  for (i = 0; i < n; i++)
    if (ids[i].cbid < SYNC_IDS)
      sync_tab[ids[i].domain - CUPTI_CB_DOMAIN_DRIVER_API][ids[i].cbid] =
          kind;
  for (i = 0; i < n; i++)
    if (cupti.EnableCallback (1, subscriber, ids[i].domain,
            ids[i].cbid) == CUPTI_SUCCESS)
      n_on++;
  return n_on;
}

/* Returns how many synchronizing and event record callbacks were enabled */
static guint
enable_sync_callbacks (void)
{
  guint n_sync, n_record;

  if (!subscriber || !cupti.EnableCallback)
    return 0;
  n_sync = skipped ("sync") ? 0 : enable_not_launch (gpuprof_sync_ids,
      G_N_ELEMENTS (gpuprof_sync_ids), NOT_LAUNCH_SYNC);
  n_record = skipped ("record") ? 0 : enable_not_launch (gpuprof_record_ids,
      G_N_ELEMENTS (gpuprof_record_ids), NOT_LAUNCH_EVENT_RECORD);
  GST_INFO ("%u synchronize callbacks on: gpu_wait_ns measured; %u event "
      "record callbacks on: batch ends on owned threads", n_sync, n_record);
  return n_sync + n_record;
}

/* Returns how many callbacks were enabled, 0 when the path cannot work */
static guint
enable_launch_callbacks (void)
{
  guint n_on;

  if (!subscriber || !cupti.EnableCallback || !cupti.GetCallbackName)
    return 0;
  n_on = gpuprof_enable_named_callbacks (cupti.GetCallbackName,
      cupti.EnableCallback, subscriber, gpuprof_launch_api_name);
  GST_INFO ("callback path: %u launch/copy/memset callbacks on", n_on);
  return n_on;
}

static void
disable_kinds (void)
{
  guint i;

  cupti.ActivityDisable (required_kind);
  for (i = 0; i < G_N_ELEMENTS (other_kinds); i++)
    cupti.ActivityDisable (other_kinds[i]);
}

static gchar *
start_session_locked (void)
{
  CUptiResult r;
  guint i;

  if (cupti.Subscribe) {
    r = cupti.Subscribe (&subscriber, subscriber_callback, NULL);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      subscriber = NULL;
      return g_strdup ("another CUPTI client is attached (Nsight Systems, "
          "ncu or compute-sanitizer?): NVTX ranges only");
    }
    if (r != CUPTI_SUCCESS) {
      GST_INFO ("cuptiSubscribe: %s; cannot detect other CUPTI clients",
          result_string (r));
      subscriber = NULL;
    }
  }

  /* API records must carry gettid(), the key of gpuprof-gpu's thread slots */
  if (!cupti.SetThreadIdType ||
      cupti.SetThreadIdType (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) !=
      CUPTI_SUCCESS)
    gpuprof_gpu_use_pthread_ids (TRUE);

  /* before any kind is enabled, or CUPTI keeps its default clock */
  have_ts_callback = cupti.ActivityRegisterTimestampCallback &&
      !skipped ("ts") && cupti.ActivityRegisterTimestampCallback (monotonic_timestamp) ==
      CUPTI_SUCCESS;
  if (!have_ts_callback && cupti.GetTimestamp) {
    uint64_t c = 0;
    guint64 m = gpuprof_clock_monotonic_ns ();
    cupti.GetTimestamp (&c);
    ts_offset = (gint64) m - (gint64) c;
    GST_INFO ("no CUPTI timestamp callback: measured offset %" G_GINT64_FORMAT
        " ns", ts_offset);
  }

  r = cupti.ActivityRegisterCallbacks (buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS)
    return g_strdup_printf ("cuptiActivityRegisterCallbacks: %s",
        result_string (r));

  r = cupti.ActivityEnable (required_kind);
  if (r != CUPTI_SUCCESS) {
    return g_strdup_printf ("cuptiActivityEnable(CONCURRENT_KERNEL): %s "
        "(no GPU or no CUDA driver here?)", result_string (r));
  }

  path_on = settings.path;
  if (path_on == GPUPROF_CUPTI_PATH_CALLBACK) {
    gpuprof_gpu_launch_table_init ();
    if (enable_launch_callbacks () == 0) {
      GST_WARNING ("CUPTI callbacks unavailable (no subscriber or no "
          "cuptiEnableCallback): cupti-path=activity");
      path_on = GPUPROF_CUPTI_PATH_ACTIVITY;
    }
  }
  enable_sync_callbacks ();
  for (i = 0; i < G_N_ELEMENTS (other_kinds); i++) {
    if (path_on == GPUPROF_CUPTI_PATH_CALLBACK && i >= N_GPU_KINDS)
      break;
    if (kind_skipped (other_kinds[i]))
      continue;
    r = cupti.ActivityEnable (other_kinds[i]);
    if (r != CUPTI_SUCCESS)
      GST_WARNING ("cuptiActivityEnable(%d): %s", other_kinds[i],
          result_string (r));
  }
  return NULL;
}

static void
stop_session_locked (void)
{
  collector_stop = TRUE;
  g_cond_broadcast (&collector_cond);
  g_mutex_unlock (&lock);
  if (collector)
    g_thread_join (collector);
  collector = NULL;
  gpuprof_gpu_set_backend (NULL);
  cupti.ActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  gpuprof_gpu_settle (gpuprof_clock_monotonic_ns (), GPUPROF_GPU_SETTLE_ALL);
  g_mutex_lock (&lock);
  disable_kinds ();
  /* unsubscribing turns the launch callbacks off */
  if (subscriber && cupti.Unsubscribe)
    cupti.Unsubscribe (subscriber);
  subscriber = NULL;
  active = FALSE;
}

/* Process exit with a session still running (an application that never
 * calls gst_deinit()): end it here. CUPTI registers its own exit handlers
 * while the session starts, before this one, so this runs first and CUPTI
 * still works: records still in buffers are delivered and settled for the
 * tracer's exit report. Ending it later, from that report, called into a
 * CUPTI already torn down (cuptiActivityDisable crashed on the H100). */
static void
stop_at_exit (void)
{
  g_mutex_lock (&lock);
  if (active) {
    refcount = 0;
    stop_session_locked ();
  }
  g_mutex_unlock (&lock);
}

/**
 * gpuprof_cupti_start:
 * @settings: (nullable): mode, library, periods; NULL: auto, defaults
 * @reason: (out) (optional) (transfer full): when it returns FALSE, one line
 *   starting with "GPU attribution off: " saying why, for the caller to print
 *   once (GST_WARNING + g_printerr)
 *
 * Loads CUPTI (once per process) and starts the activity session, or takes a
 * reference on the running one. Each successful call needs a
 * gpuprof_cupti_stop(). Also sets the gpuprof-gpu backend; the caller enables
 * its channel with gpuprof_gpu_enable_channel().
 *
 * Returns: whether GPU records are being collected
 */
gboolean
gpuprof_cupti_start (const GpuprofCuptiSettings * s, gchar ** reason)
{
  gchar *why = NULL;

  init_debug ();
  if (s && s->mode == GPUPROF_CUPTI_OFF) {
    if (reason)
      *reason = g_strdup (REASON_PREFIX "cupti=off");
    return FALSE;
  }

  g_mutex_lock (&lock);
  if (active) {
    refcount++;
    g_mutex_unlock (&lock);
    return TRUE;
  }
  if (s) {
    settings = *s;
    g_free (settings_library);
    settings_library = g_strdup (s->library);
    settings.library = settings_library;
  }
  if (!load_library_locked ()) {
    why = g_strdup (load_error);
  } else {
    why = start_session_locked ();
    if (why)
      disable_kinds ();
    if (why && subscriber && cupti.Unsubscribe) {
      cupti.Unsubscribe (subscriber);
      subscriber = NULL;
    }
  }

  if (why) {
    GST_WARNING (REASON_PREFIX "%s", why);
    if (reason)
      *reason = g_strconcat (REASON_PREFIX, why, NULL);
    g_free (why);
    g_mutex_unlock (&lock);
    return FALSE;
  }

  refcount = 1;
  g_atomic_int_set (&active, TRUE);
  gpuprof_gpu_set_backend (path_on == GPUPROF_CUPTI_PATH_CALLBACK ?
      &callback_backend : &cupti_backend);
  collector_stop = FALSE;
  collector = g_thread_new ("gpuprof-cupti", collector_main, NULL);
  if (!atexit_done) {
    atexit (stop_at_exit);
    atexit_done = TRUE;
  }
  GST_INFO ("CUPTI activity collection on (%s clock)",
      have_ts_callback ? "monotonic callback" : "measured offset");
  g_mutex_unlock (&lock);
  return TRUE;
}

/**
 * gpuprof_cupti_stop:
 *
 * Drops a reference taken by a successful gpuprof_cupti_start(). The last one
 * flushes (forced), settles every record and disables the activity kinds.
 */
void
gpuprof_cupti_stop (void)
{
  g_mutex_lock (&lock);
  if (active && --refcount == 0)
    stop_session_locked ();
  g_mutex_unlock (&lock);
}

/**
 * gpuprof_cupti_active:
 *
 * Returns: whether a CUPTI session is collecting records
 */
gboolean
gpuprof_cupti_active (void)
{
  return g_atomic_int_get (&active);
}

/**
 * gpuprof_cupti_flush:
 * @forced: also hand over buffers with incomplete records, and settle every
 *   record (end of run: EOS, NULL, exit); else completed buffers only, and
 *   settle what is joined
 *
 * Synchronous: when it returns, the records are in gpuprof-gpu's statistics.
 * It does not synchronise the GPU: work still running is not there yet.
 */
void
gpuprof_cupti_flush (gboolean forced)
{
  if (!g_atomic_int_get (&active))
    return;
  cupti.ActivityFlushAll (forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  gpuprof_gpu_settle (gpuprof_clock_monotonic_ns (), forced ?
      GPUPROF_GPU_SETTLE_ALL : GPUPROF_GPU_SETTLE_JOINED);
}

/**
 * gpuprof_cupti_path:
 *
 * Returns: the collection path of the running session (or of the last one)
 */
GpuprofCuptiPath
gpuprof_cupti_path (void)
{
  return path_on;
}

/**
 * gpuprof_cupti_dropped:
 *
 * Returns: records CUPTI reported as dropped since the process started
 */
guint64
gpuprof_cupti_dropped (void)
{
  return __atomic_load_n (&dropped, __ATOMIC_RELAXED);
}

#endif /* HAVE_CUPTI_HEADERS */
