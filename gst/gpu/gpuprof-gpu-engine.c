/* gpuprof: GPU attribution, the record side's engine (see
 * gpuprof-gpu-engine.h): its lock, its limits, the channels that get
 * statistics and the one listener registry. It calls nothing else of the
 * GPU code. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-gpu-engine.h"
#include "gpuprof-ids.h"

#include <string.h>

static struct
{
  GMutex lock;
  GpuprofGpuConfig config;
  gint channels_used;           /* atomic */
} engine = {
  .config = {GPUPROF_GPU_DEFAULT_RETAIN_NS, GPUPROF_GPU_DEFAULT_MAX_PENDING,
      GPUPROF_GPU_DEFAULT_RING_SIZE},
};

void
gpuprof_gpu_engine_lock (void)
{
  g_mutex_lock (&engine.lock);
}

void
gpuprof_gpu_engine_unlock (void)
{
  g_mutex_unlock (&engine.lock);
}

const GpuprofGpuConfig *
gpuprof_gpu_engine_config_locked (void)
{
  return &engine.config;
}

void
gpuprof_gpu_engine_configure_locked (const GpuprofGpuConfig * c)
{
  if (c->retain_ns)
    engine.config.retain_ns = c->retain_ns;
  if (c->max_pending)
    engine.config.max_pending = c->max_pending;
  if (c->ring_size)
    engine.config.ring_size = c->ring_size;
}

void
gpuprof_gpu_engine_use_channel (GpuprofGpuChannel channel)
{
  g_atomic_int_or (&engine.channels_used, 1 << channel);
}

gint
gpuprof_gpu_engine_channels_used (void)
{
  return g_atomic_int_get (&engine.channels_used);
}

/* ------------------------------------------------------------------ */
/* listeners                                                           */

/* One registry for both kinds of call. The array is guarded by the engine
 * lock (op calls are made with it held, so removing under it waits for
 * them); settle calls are made on a copy, without the engine lock (they
 * may query), under settle_calls, which removal also takes to wait for a
 * call in progress. Lock order: settle_calls, then the engine lock. */
typedef struct
{
  guint id;
  GpuprofGpuChannel channel;
  GpuprofGpuListener funcs;
  gpointer user_data;
} Listener;

static GArray *listeners;       /* Listener, engine lock */
static guint n_op_listeners;    /* those with an op function, engine lock */
static guint next_listener_id = 1;      /* engine lock */
static GRecMutex settle_calls;

/**
 * gpuprof_gpu_add_listener:
 * @channel: whose attribution @funcs->op gets (the channel must be
 *   enabled, or have been: only those are attributed)
 * @funcs: what to call; copied. Either function may be %NULL:
 *   - op: once for every GPU record settled from now on on @channel, on the
 *     settling thread (the CUPTI collector, or whoever flushes) **with the
 *     engine lock held**: it must be short and must not call gpuprof_gpu_*
 *     (the trace's GPU tracks, gpuprof-gputrace.c);
 *   - settled: after each gpuprof_gpu_settle(), whatever the channel, on
 *     the settling thread, without the engine lock: it may query
 *     (gpuprofmeter posts the buffers settled by then).
 * @user_data: for both functions
 *
 * Returns: an id for gpuprof_gpu_remove_listener()
 */
guint
gpuprof_gpu_add_listener (GpuprofGpuChannel channel,
    const GpuprofGpuListener * funcs, gpointer user_data)
{
  Listener l = { 0, channel, *funcs, user_data };

  g_mutex_lock (&engine.lock);
  if (!listeners)
    listeners = g_array_new (FALSE, FALSE, sizeof (Listener));
  l.id = next_listener_id++;
  g_array_append_val (listeners, l);
  if (l.funcs.op)
    n_op_listeners++;
  g_mutex_unlock (&engine.lock);
  return l.id;
}

/**
 * gpuprof_gpu_remove_listener:
 * @id: from gpuprof_gpu_add_listener()
 *
 * When it returns, the listener is not running on another thread and will
 * not be called again. May be called from the listener's own settled
 * function, not from its op function.
 */
void
gpuprof_gpu_remove_listener (guint id)
{
  gint i;

  g_mutex_lock (&engine.lock);
  if (listeners && (i = gpuprof_id_index (listeners, id)) >= 0) {
    if (g_array_index (listeners, Listener, i).funcs.op)
      n_op_listeners--;
    g_array_remove_index (listeners, i);
  }
  g_mutex_unlock (&engine.lock);
  /* a settled call that copied it before may still be running */
  g_rec_mutex_lock (&settle_calls);
  g_rec_mutex_unlock (&settle_calls);
}

gboolean
gpuprof_gpu_engine_have_op_listeners_locked (void)
{
  return n_op_listeners > 0;
}

void
gpuprof_gpu_engine_call_op_listeners_locked (const GpuprofGpuSettledOp * so)
{
  guint i;

  for (i = 0; i < listeners->len; i++) {
    Listener *l = &g_array_index (listeners, Listener, i);
    if (l->funcs.op && l->channel == so->channel)
      l->funcs.op (so, l->user_data);
  }
}

void
gpuprof_gpu_engine_call_settle_listeners (void)
{
  Listener *copy = NULL;
  guint i, n = 0;

  g_rec_mutex_lock (&settle_calls);
  g_mutex_lock (&engine.lock);
  if (listeners && listeners->len) {
    copy = g_new (Listener, listeners->len);
    for (i = 0; i < listeners->len; i++) {
      Listener *l = &g_array_index (listeners, Listener, i);
      if (l->funcs.settled)
        copy[n++] = *l;
    }
  }
  g_mutex_unlock (&engine.lock);
  for (i = 0; i < n; i++)
    copy[i].funcs.settled (copy[i].user_data);
  g_free (copy);
  g_rec_mutex_unlock (&settle_calls);
}
