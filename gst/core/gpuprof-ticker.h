/* gpuprof: periodic work on a thread of our own (the ticker).
 *
 * What runs every so often, off the buffer path and without a GLib main
 * loop: the event bus's drain (gpuprof-bus.c, a ticker of its own), the
 * session's stall watchdog and live snapshots (interval=, docs/live.md),
 * and the resource sampler (issue 22: every thread's CPU
 * and run delay from /proc, the GPU engines from NVML, at 10 Hz at most),
 * which registers here and hands its readings on as events on the bus
 * (gpuprof-bus.h) or as figures the verdict reads. Each registration has
 * its own period; all run on the ticker's one thread, one after another,
 * in the order they were added, so a slow one delays the others (keep
 * each short: a /proc read, a snapshot).
 *
 * A call due while another ran late is made once, not made up: the next
 * is a period after it.
 */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct _GpuprofTicker GpuprofTicker;

/* @now_us: g_get_monotonic_time() when the ticker woke for it. Returns
 * TRUE to run again at once (a backlog: the bus drained a full batch),
 * FALSE to wait for the next period. */
typedef gboolean (*GpuprofTickFunc) (gint64 now_us, gpointer user_data);

/* @name: the thread's name ("gpuprof-live") */
GPUPROF_API
GpuprofTicker *gpuprof_ticker_new (const gchar * name);
/* Stops the thread (waits for a call in progress) and frees the ticker. In
 * a child forked after its thread started (no such thread there) it only
 * frees. */
GPUPROF_API
void gpuprof_ticker_free (GpuprofTicker * ticker);

/* @func runs every @period_us (> 0), the first time a period from now;
 * the thread starts with the first. Returns an id for
 * gpuprof_ticker_remove(). Any thread. */
GPUPROF_API
guint gpuprof_ticker_add (GpuprofTicker * ticker, gint64 period_us,
    GpuprofTickFunc func, gpointer user_data);
/* When it returns, @id's function is not running and will not run again
 * (also when called from that function). */
GPUPROF_API
void gpuprof_ticker_remove (GpuprofTicker * ticker, guint id);
/* @id's function is due now rather than at its next period (a producer
 * filling in bursts); never waits for it. */
GPUPROF_API
void gpuprof_ticker_wake (GpuprofTicker * ticker, guint id);

G_END_DECLS
