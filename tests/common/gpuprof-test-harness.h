/* Helpers for the tests that drive one element through a GstHarness: hold
 * its output on the src pad, drain events to EOS, poll a condition. */
#pragma once

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

G_BEGIN_DECLS

/* Polls @cond (no time limit: GstCheck's timeout ends a hang). */
#define GPUPROF_TEST_WAIT_UNTIL(cond) while (!(cond)) g_usleep (1000)

/* Blocks the buffers leaving @h's element on its src pad, counting each
 * blocked buffer in @hits (atomically). Returns the probe for
 * gpuprof_test_release_src(). */
gulong gpuprof_test_hold_src (GstHarness * h, gint * hits);
void gpuprof_test_release_src (GstHarness * h, gulong id);
/* Pulls and drops the events @h's element pushed, up to EOS included. */
void gpuprof_test_pull_to_eos (GstHarness * h);

G_END_DECLS
