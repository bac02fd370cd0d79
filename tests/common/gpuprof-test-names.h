/* Names the trace writer asks for (GpuprofTraceNames) in tests that push
 * made-up events without a pipeline: one table instead of a set of
 * callbacks in each test. */
#pragma once

#include "gpuprof-trace.h"

G_BEGIN_DECLS

/* Pad ids of the made-up pipeline: pad GPUPROF_TEST_PAD_BASE + i is the
 * sink pad of element i. */
#define GPUPROF_TEST_PAD_BASE 10

/* Names of a pipeline "pipeline0" whose element id i is @elements[i - 1]
 * (a %NULL-terminated table, kept by the caller), pad id
 * GPUPROF_TEST_PAD_BASE + i is "<element's own name>:sink", thread 1
 * "src:src", thread 2 "q:src" and any other thread "main". */
GpuprofTraceNames gpuprof_test_trace_names (const gchar * const *elements);

G_END_DECLS
