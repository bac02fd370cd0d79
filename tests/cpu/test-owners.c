/* Thread owners (gst/core/gpuprof-owners.c) on threads the test makes: a
 * thread that appears while call windows are open on two other threads
 * waits (pending) for the first of them to close if it is one of GLib's
 * pool, for the last otherwise; where none closes within the sampler
 * passes allowed, a pool thread is the process's (the sampler then shares
 * its CPU among the pool's users, as for any pool thread between tasks),
 * and another thread is unattributed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <glib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gpuprof-owners.h"

/* a thread that opens a call window of @element_id (0: none) and keeps it
 * open till told */
typedef struct
{
  GThread *thread;
  guint32 element_id;
  gint tid;
  GAsyncQueue *go;              /* 1: close the window (if any) and end */
  GAsyncQueue *ready;
} Helper;

static gpointer
helper_main (gpointer data)
{
  Helper *h = data;

  h->tid = (gint) syscall (SYS_gettid);
  if (h->element_id)
    gpuprof_owners_call_window (h->element_id, TRUE);
  g_async_queue_push (h->ready, GINT_TO_POINTER (1));
  g_async_queue_pop (h->go);
  if (h->element_id)
    gpuprof_owners_call_window (0, FALSE);
  return NULL;
}

static Helper *
helper_start (const gchar * name, guint32 element_id)
{
  Helper *h = g_new0 (Helper, 1);

  h->element_id = element_id;
  h->go = g_async_queue_new ();
  h->ready = g_async_queue_new ();
  h->thread = g_thread_new (name, helper_main, h);
  g_async_queue_pop (h->ready);
  return h;
}

static void
helper_end (Helper * h)
{
  g_async_queue_push (h->go, GINT_TO_POINTER (1));
  g_thread_join (h->thread);
  g_async_queue_unref (h->go);
  g_async_queue_unref (h->ready);
  g_free (h);
}

/* a thread named @name appears while windows of elements 11 and 12 are
 * open on two threads; the first sight of it (the sampler's) leaves it
 * pending. With @close_first the window of 12 closes then; else the
 * sampler passes go by. Its owner and kind at the end. */
static void
appears_beside_two_windows (const gchar * name, gboolean close_first,
    guint32 * element_id, GpuprofThreadKind * kind)
{
  Helper *a = helper_start ("win-a", 11), *b = helper_start ("win-b", 12);
  Helper *n = helper_start (name, 0);
  GpuprofOwnerHow how;
  guint i;

  g_assert_true (gpuprof_owners_first_sight (n->tid, name));
  /* pending: no owner yet */
  g_assert_false (gpuprof_owners_get (n->tid, element_id, kind, &how));
  if (close_first)
    helper_end (b);
  for (i = 0; i < 3; i++)
    gpuprof_owners_settle_pending (3);
  g_assert_true (gpuprof_owners_get (n->tid, element_id, kind, &how));
  g_assert_cmpint (how, ==, GPUPROF_OWNER_BY_CALL);
  gpuprof_owners_forget (n->tid);
  helper_end (n);
  helper_end (a);
  if (!close_first)
    helper_end (b);
}

/* a thread's name, whether a window closes, the owner it must get */
typedef struct
{
  const gchar *path;
  const gchar *name;
  gboolean close_first;
  guint32 element_id;
  const gchar *kind;
} Case;

static const Case cases[] = {
  /* GLib's pool thread whose windows stayed open: the process's */
  {"/owners/pending/pool-thread-no-window-closed", "pool-test", FALSE, 0,
      "process"},
  /* any other thread whose windows stayed open: no owner could be told */
  {"/owners/pending/other-thread-no-window-closed", "helper-x", FALSE, 0,
      "unattributed"},
  /* a pool thread goes to the first window that closes after it was seen */
  {"/owners/pending/pool-thread-first-close", "pool-test", TRUE, 12,
      "worker"},
};

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  guint32 element_id = 99;
  GpuprofThreadKind kind;

  appears_beside_two_windows (c->name, c->close_first, &element_id, &kind);
  g_assert_cmpint (element_id, ==, c->element_id);
  g_assert_cmpstr (gpuprof_thread_kind_name (kind), ==, c->kind);
}

int
main (int argc, char **argv)
{
  guint i;

  g_test_init (&argc, &argv, NULL);
  /* the first scan: the threads there now are the application's */
  gpuprof_owners_scan (0);
  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    g_test_add_data_func (cases[i].path, &cases[i], test_case);
  return g_test_run ();
}
