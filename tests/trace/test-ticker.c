/* The ticker (gst/core/gpuprof-ticker.h), the thread of the periodic work
 * (the bus's drain, the live snapshots, the stall watchdog, the resource
 * sampler): each registration runs again and again on the ticker's
 * thread, a removal waits for a call in progress and none comes after it,
 * a function may remove itself, a wake runs it before its period, one
 * that asks runs again at once, and freeing stops the thread. No bound on
 * time: only that things happen, within a generous wait (the periods that
 * must not pass are far longer). */
#include <glib.h>
#include <string.h>

#include "gpuprof-ticker.h"

#define WAIT_US (10 * G_USEC_PER_SEC)

typedef struct
{
  GMutex lock;
  GCond cond;
  guint calls;
  gboolean in_call;
  GThread *thread;              /* where it ran */
  guint sleep_ms;               /* each call lasts this long */
  GpuprofTicker *ticker;
  guint id;                     /* removes itself when set */
  guint again;                  /* asks to run again at once this often */
} Counter;

static void
counter_init (Counter * c)
{
  memset (c, 0, sizeof (*c));
  g_mutex_init (&c->lock);
  g_cond_init (&c->cond);
}

static void
counter_clear (Counter * c)
{
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->cond);
}

static gboolean
tick (gint64 now_us, gpointer data)
{
  Counter *c = data;

  g_mutex_lock (&c->lock);
  c->in_call = TRUE;
  c->thread = g_thread_self ();
  g_mutex_unlock (&c->lock);
  if (c->sleep_ms)
    g_usleep (c->sleep_ms * 1000);
  if (c->id)
    gpuprof_ticker_remove (c->ticker, c->id);
  g_mutex_lock (&c->lock);
  c->in_call = FALSE;
  c->calls++;
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
  return c->again && c->again--;
}

/* waits until @c ran @n times; FALSE when it did not within WAIT_US */
static gboolean
wait_calls (Counter * c, guint n)
{
  gint64 end = g_get_monotonic_time () + WAIT_US;
  gboolean ok = TRUE;

  g_mutex_lock (&c->lock);
  while (c->calls < n && ok)
    ok = g_cond_wait_until (&c->cond, &c->lock, end);
  ok = c->calls >= n;
  g_mutex_unlock (&c->lock);
  return ok;
}

static guint
calls_of (Counter * c)
{
  guint n;

  g_mutex_lock (&c->lock);
  n = c->calls;
  g_mutex_unlock (&c->lock);
  return n;
}

static void
test_each_runs_again_on_one_thread (void)
{
  GpuprofTicker *t = gpuprof_ticker_new ("gpuprof-test-ticker");
  Counter a, b;

  counter_init (&a);
  counter_init (&b);
  gpuprof_ticker_add (t, 5000, tick, &a);
  gpuprof_ticker_add (t, 20000, tick, &b);
  g_assert_true (wait_calls (&a, 5));
  g_assert_true (wait_calls (&b, 2));
  gpuprof_ticker_free (t);
  /* one thread of its own runs both */
  g_assert_true (a.thread == b.thread);
  g_assert_true (a.thread != g_thread_self ());
  counter_clear (&a);
  counter_clear (&b);
}

static void
test_remove_waits_for_the_call (void)
{
  GpuprofTicker *t = gpuprof_ticker_new ("gpuprof-test-ticker");
  Counter c;
  guint id, n;

  counter_init (&c);
  c.sleep_ms = 50;
  id = gpuprof_ticker_add (t, 1000, tick, &c);
  /* remove while a call sleeps in it */
  g_mutex_lock (&c.lock);
  while (!c.in_call)
    g_cond_wait_until (&c.cond, &c.lock, g_get_monotonic_time () + 1000);
  g_mutex_unlock (&c.lock);
  gpuprof_ticker_remove (t, id);
  g_mutex_lock (&c.lock);
  g_assert_false (c.in_call);
  n = c.calls;
  g_mutex_unlock (&c.lock);
  g_usleep (100 * 1000);
  g_assert_cmpuint (calls_of (&c), ==, n);
  gpuprof_ticker_free (t);
  counter_clear (&c);
}

static void
test_removes_itself (void)
{
  GpuprofTicker *t = gpuprof_ticker_new ("gpuprof-test-ticker");
  Counter self, other;

  counter_init (&self);
  counter_init (&other);
  self.ticker = t;
  self.id = gpuprof_ticker_add (t, 1000, tick, &self);
  gpuprof_ticker_add (t, 1000, tick, &other);
  g_assert_true (wait_calls (&self, 1));
  /* the others go on; it never runs again */
  g_assert_true (wait_calls (&other, 10));
  g_assert_cmpuint (calls_of (&self), ==, 1);
  gpuprof_ticker_free (t);
  counter_clear (&self);
  counter_clear (&other);
}

/* a period of a minute: only a wake, or asking again, runs it in the wait */
#define LONG_US (60 * G_USEC_PER_SEC)

static void
test_wake_runs_it_now (void)
{
  GpuprofTicker *t = gpuprof_ticker_new ("gpuprof-test-ticker");
  Counter c;
  guint id;

  counter_init (&c);
  id = gpuprof_ticker_add (t, LONG_US, tick, &c);
  gpuprof_ticker_wake (t, id);
  g_assert_true (wait_calls (&c, 1));
  gpuprof_ticker_wake (t, id);
  g_assert_true (wait_calls (&c, 2));
  gpuprof_ticker_free (t);
  counter_clear (&c);
}

static void
test_again_runs_it_at_once (void)
{
  GpuprofTicker *t = gpuprof_ticker_new ("gpuprof-test-ticker");
  Counter c;
  guint id;

  counter_init (&c);
  c.again = 3;
  id = gpuprof_ticker_add (t, LONG_US, tick, &c);
  gpuprof_ticker_wake (t, id);
  /* the wake's call and the three it asked for; then the period holds */
  g_assert_true (wait_calls (&c, 4));
  g_usleep (100 * 1000);
  g_assert_cmpuint (calls_of (&c), ==, 4);
  gpuprof_ticker_free (t);
  counter_clear (&c);
}

static void
test_free_without_ticks (void)
{
  /* no thread was started: nothing to join */
  gpuprof_ticker_free (gpuprof_ticker_new ("gpuprof-test-ticker"));
  gpuprof_ticker_free (NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ticker/each-runs-again-on-one-thread",
      test_each_runs_again_on_one_thread);
  g_test_add_func ("/ticker/remove-waits-for-the-call",
      test_remove_waits_for_the_call);
  g_test_add_func ("/ticker/removes-itself", test_removes_itself);
  g_test_add_func ("/ticker/wake-runs-it-now", test_wake_runs_it_now);
  g_test_add_func ("/ticker/again-runs-it-at-once",
      test_again_runs_it_at_once);
  g_test_add_func ("/ticker/free-without-ticks", test_free_without_ticks);
  return g_test_run ();
}
