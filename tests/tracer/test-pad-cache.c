/* The per-thread pad cache (gpuprof-objects.h) is direct-mapped: every one
 * of its GPUPROF_PAD_CACHE slots must be reachable by real pads, or pads
 * evict each other from a fraction of it. Pads are heap objects a few
 * hundred bytes apart, so their addresses share their low bits. */
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

  for (i = 0; i < 4 * GPUPROF_PAD_CACHE; i++)
    hits[gpuprof_objects_cache_slot ((gconstpointer) (base + 16 * i))]++;
  for (i = 0; i < GPUPROF_PAD_CACHE; i++)
    used += hits[i] != 0;
  fail_unless_equals_int (used, GPUPROF_PAD_CACHE);
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
  return s;
}

GST_CHECK_MAIN (pad_cache);
