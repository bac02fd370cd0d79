/* Per-thread event ring: a full ring drops and counts, order is kept across
 * wrap-around, and one producer with one consumer on other threads lose
 * nothing but what they count. */
#include <glib.h>

#include "gpuprof-ring.h"

static GpuprofEvent
event (guint64 seq)
{
  GpuprofEvent ev = { GPUPROF_EVENT_CHAIN, 1, 2, 3, seq * 10, 5, seq };
  return ev;
}

static void
test_full_ring_drops_and_counts (void)
{
  GpuprofRing *ring = gpuprof_ring_new (7, 100);
  GpuprofEvent ev, out[256];
  guint cap = gpuprof_ring_capacity (ring), i;

  g_assert_cmpuint (cap, ==, 128);      /* rounded up to a power of two */
  for (i = 0; i < cap; i++) {
    ev = event (i);
    g_assert_true (gpuprof_ring_push (ring, &ev));
  }
  g_assert_cmpuint (gpuprof_ring_level (ring), ==, cap);
  for (i = 0; i < 10; i++) {
    ev = event (1000 + i);
    g_assert_false (gpuprof_ring_push (ring, &ev));
  }
  g_assert_cmpuint (gpuprof_ring_lost (ring), ==, 10);

  /* the kept events are the first ones, in order */
  g_assert_cmpuint (gpuprof_ring_pop (ring, out, 256), ==, cap);
  for (i = 0; i < cap; i++)
    g_assert_cmpuint (out[i].seq, ==, i);
  g_assert_cmpuint (gpuprof_ring_pop (ring, out, 256), ==, 0);

  /* room again after a drain */
  ev = event (5000);
  g_assert_true (gpuprof_ring_push (ring, &ev));
  g_assert_cmpuint (gpuprof_ring_lost (ring), ==, 10);
  gpuprof_ring_free (ring);
}

static void
test_wrap_around (void)
{
  GpuprofRing *ring = gpuprof_ring_new (1, 16);
  GpuprofEvent ev, out[5];
  guint64 next_in = 0, next_out = 0;
  guint round, i, n;

  for (round = 0; round < 100; round++) {
    for (i = 0; i < 7; i++) {
      ev = event (next_in++);
      g_assert_true (gpuprof_ring_push (ring, &ev));
    }
    while ((n = gpuprof_ring_pop (ring, out, G_N_ELEMENTS (out))) > 0)
      for (i = 0; i < n; i++)
        g_assert_cmpuint (out[i].seq, ==, next_out++);
  }
  g_assert_cmpuint (next_out, ==, next_in);
  g_assert_cmpuint (gpuprof_ring_lost (ring), ==, 0);
  gpuprof_ring_free (ring);
}

#define STRESS_EVENTS 2000000

static gpointer
producer (gpointer data)
{
  GpuprofRing *ring = data;
  guint64 i, stored = 0;

  for (i = 0; i < STRESS_EVENTS; i++) {
    GpuprofEvent ev = event (i);

    stored += gpuprof_ring_push (ring, &ev);
  }
  return GSIZE_TO_POINTER (stored);
}

static void
test_threads (void)
{
  GpuprofRing *ring = gpuprof_ring_new (1, 1024);
  GThread *t = g_thread_new ("producer", producer, ring);
  GpuprofEvent out[300];
  guint64 received = 0, last = 0, stored;
  gboolean done = FALSE;
  guint n, i;

  while (!done) {
    /* check before popping, so nothing pushed after the last pop is missed */
    done = gpuprof_ring_level (ring) == 0
        && received + gpuprof_ring_lost (ring) == STRESS_EVENTS;
    while ((n = gpuprof_ring_pop (ring, out, G_N_ELEMENTS (out))) > 0) {
      for (i = 0; i < n; i++) {
        /* gaps are drops, never reordering or duplicates */
        g_assert_true (received == 0 || out[i].seq > last);
        g_assert_cmpuint (out[i].ts, ==, out[i].seq * 10);
        last = out[i].seq;
        received++;
      }
    }
  }
  stored = GPOINTER_TO_SIZE (g_thread_join (t));
  g_assert_cmpuint (received, ==, stored);
  g_assert_cmpuint (received + gpuprof_ring_lost (ring), ==, STRESS_EVENTS);
  gpuprof_ring_free (ring);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ring/full-drops-and-counts",
      test_full_ring_drops_and_counts);
  g_test_add_func ("/ring/wrap-around", test_wrap_around);
  g_test_add_func ("/ring/producer-consumer-threads", test_threads);
  return g_test_run ();
}
