/* The per-thread pad cache (gpuprof-objects.h) gives each pad two slots of
 * one hash: every one of its GPUPROF_PAD_CACHE slots must be reachable by
 * real pads, or pads evict each other from a fraction of it. Pads are heap
 * objects a few hundred bytes apart, so their addresses share their low
 * bits. */
#include <gst/check/gstcheck.h>

#include "gpuprof-objects.h"

#define N_PADS (8 * GPUPROF_PAD_CACHE)

GST_START_TEST (test_pads_reach_every_slot)
{
  GstPad *pads[N_PADS];
  guint hits[GPUPROF_PAD_CACHE] = { 0 };
  guint i, used = 0, busiest = 0;

  for (i = 0; i < N_PADS; i++) {
    pads[i] = gst_pad_new (NULL, i % 2 ? GST_PAD_SRC : GST_PAD_SINK);
    hits[gpuprof_objects_cache_slot (pads[i])]++;
  }
  for (i = 0; i < GPUPROF_PAD_CACHE; i++) {
    used += hits[i] != 0;
    busiest = MAX (busiest, hits[i]);
  }
  GST_INFO ("%u pads: %u of %u slots used, at most %u in one", N_PADS, used,
      GPUPROF_PAD_CACHE, busiest);
  fail_unless_equals_int (used, GPUPROF_PAD_CACHE);
  /* 8 per slot on average: no slot draws a crowd */
  fail_unless (busiest <= 4 * N_PADS / GPUPROF_PAD_CACHE,
      "%u pads in one slot", busiest);
  for (i = 0; i < N_PADS; i++)
    gst_object_unref (pads[i]);
}

GST_END_TEST;

/* the same for addresses at the allocator's smallest step: every 16 bytes */
GST_START_TEST (test_aligned_addresses_reach_every_slot)
{
  guint hits[GPUPROF_PAD_CACHE] = { 0 };
  guintptr base = (guintptr) 0x7f3a12345000;
  guint i, used = 0;

  guint hits2[GPUPROF_PAD_CACHE] = { 0 }, used2 = 0;

  for (i = 0; i < 4 * GPUPROF_PAD_CACHE; i++) {
    gconstpointer p = (gconstpointer) (base + 16 * i);

    hits[gpuprof_objects_cache_slot (p)]++;
    hits2[gpuprof_objects_cache_slot2 (p)]++;
    fail_unless (gpuprof_objects_cache_slot (p) !=
        gpuprof_objects_cache_slot2 (p));
  }
  for (i = 0; i < GPUPROF_PAD_CACHE; i++) {
    used += hits[i] != 0;
    used2 += hits2[i] != 0;
  }
  fail_unless_equals_int (used, GPUPROF_PAD_CACHE);
  /* the second slot's bits spread like a random draw, not evenly (1024
   * draws miss about 5 of 256): it must not fall into a part of the cache */
  fail_unless (used2 >= GPUPROF_PAD_CACHE * 15 / 16, "second slots: %u",
      used2);
}

GST_END_TEST;

/* records that need nothing of a module */
static void
no_element (GpuprofElement * e, gpointer user_data)
{
}

static void
no_pad (GpuprofPad * p, gpointer user_data)
{
}

static gboolean
nothing_pending (GpuprofElement * e, gpointer user_data)
{
  return FALSE;
}

/* Two pads of one slot, looked up by turns (a push and the peer's chain of
 * every buffer): both stay cached, the second in its second slot, so
 * neither goes to the registry again (one pair in 256 slots is likelier
 * than not among a pipeline's pads). */
GST_START_TEST (test_two_pads_of_one_slot_stay)
{
  static const GpuprofObjectsFuncs funcs = { no_element, no_pad, NULL,
    nothing_pending, no_element
  };
  GpuprofObjects *o = gpuprof_objects_new (&funcs, NULL);
  GpuprofThread *t = gpuprof_thread_get ();
  GstElement *els[N_PADS / 2];
  GstPad *first[GPUPROF_PAD_CACHE] = { NULL }, *a = NULL, *b = NULL;
  GpuprofPad *ga, *gb;
  guint i, slot = 0, s2, k;

  /* real pads with parents, until two share a slot */
  for (i = 0; i < G_N_ELEMENTS (els) && !b; i++) {
    els[i] = gst_element_factory_make ("identity", NULL);
    for (k = 0; k < 2 && !b; k++) {
      GstPad *p = gst_element_get_static_pad (els[i], k ? "src" : "sink");
      guint s = gpuprof_objects_cache_slot (p);

      if (first[s]) {
        a = first[s];
        b = p;
        slot = s;
      } else {
        first[s] = p;
      }
      gst_object_unref (p);
    }
  }
  fail_unless (b != NULL, "no two pads of %u share a slot", 2 * i);
  ga = gpuprof_objects_pad (o, t, a);
  gb = gpuprof_objects_pad (o, t, b);
  fail_unless (ga != gb);
  /* a in the slot, b in its second: both found without the registry, by
   * turns */
  s2 = gpuprof_objects_cache_slot2 (b);
  fail_unless (t->cache[slot].key == a && t->cache[s2].key == b);
  for (k = 0; k < 4; k++) {
    fail_unless (gpuprof_objects_pad (o, t, a) == ga);
    fail_unless (gpuprof_objects_pad (o, t, b) == gb);
    fail_unless (t->cache[slot].key == a && t->cache[s2].key == b);
  }
  while (i > 0)
    gst_object_unref (els[--i]);
  gpuprof_objects_free (o);
}

GST_END_TEST;

/* Three pads of one first slot, looked up in turn as a linear pipeline's
 * pushes do (found in the wave-7 benchmark: with a slot pair, the third
 * evicted one of the others at every lookup, four registry lookups a
 * buffer). After the first round the cache holds all three and no lookup
 * changes it: every one is a hit (the slow path always writes its entry).
 * Said without the cache's layout, so it holds any scheme to it. */
GST_START_TEST (test_three_pads_of_one_slot_stay)
{
  static const GpuprofObjectsFuncs funcs = { no_element, no_pad, NULL,
    nothing_pending, no_element
  };
  GpuprofObjects *o = gpuprof_objects_new (&funcs, NULL);
  GpuprofThread *t = gpuprof_thread_get ();
  GstElement *els[N_PADS / 2];
  GstPad *first[GPUPROF_PAD_CACHE][3] = { {NULL} };
  guint n[GPUPROF_PAD_CACHE] = { 0 };
  GpuprofPadCacheEntry before[GPUPROF_PAD_CACHE];
  GpuprofPad *g[3];
  GstPad **pads = NULL;
  guint i, j, k, found;

  /* real pads with parents, until three share a first slot */
  for (i = 0; i < G_N_ELEMENTS (els) && !pads; i++) {
    els[i] = gst_element_factory_make ("identity", NULL);
    for (k = 0; k < 2 && !pads; k++) {
      GstPad *p = gst_element_get_static_pad (els[i], k ? "src" : "sink");
      guint s = gpuprof_objects_cache_slot (p);

      first[s][n[s]++] = p;
      if (n[s] == 3)
        pads = first[s];
      gst_object_unref (p);
    }
  }
  fail_unless (pads != NULL, "no three pads of %u share a slot", 2 * i);
  /* a fresh cache: a new generation empties it at the next lookup */
  g_atomic_int_inc (&gpuprof_objects_generation);
  for (j = 0; j < 3; j++)
    g[j] = gpuprof_objects_pad (o, t, pads[j]);
  fail_unless (g[0] != g[1] && g[1] != g[2] && g[0] != g[2]);
  for (j = 0, found = 0; j < GPUPROF_PAD_CACHE; j++)
    found += t->cache[j].key == pads[0] || t->cache[j].key == pads[1]
        || t->cache[j].key == pads[2];
  fail_unless_equals_int (found, 3);
  memcpy (before, t->cache, sizeof (before));
  for (k = 0; k < 4; k++) {
    for (j = 0; j < 3; j++) {
      fail_unless (gpuprof_objects_pad (o, t, pads[j]) == g[j]);
      fail_unless (memcmp (before, t->cache, sizeof (before)) == 0,
          "round %u, pad %u went to the registry", k, j);
    }
  }
  while (i > 0)
    gst_object_unref (els[--i]);
  gpuprof_objects_free (o);
}

GST_END_TEST;

static Suite *
pad_cache_suite (void)
{
  Suite *s = suite_create ("gpuprof-pad-cache");
  TCase *tc = tcase_create ("hash");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pads_reach_every_slot);
  tcase_add_test (tc, test_aligned_addresses_reach_every_slot);
  tcase_add_test (tc, test_two_pads_of_one_slot_stay);
  tcase_add_test (tc, test_three_pads_of_one_slot_stay);
  return s;
}

GST_CHECK_MAIN (pad_cache);
