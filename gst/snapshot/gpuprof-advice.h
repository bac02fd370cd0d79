/* gpuprof: the verdict per batch and the advice that names a knob.
 *
 * Pure functions over the snapshot's batch and stage rows (no pipeline, no
 * clock), so the rules are tested on synthetic statistics and give the same
 * answer on a live run and on a saved summary. The rules are documented in
 * docs/batches.md.
 */
#pragma once

#include "gpuprof-api.h"

#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

/* thresholds of the rules (docs/batches.md) */
#define GPUPROF_ADVICE_SATURATED 0.80   /* thread busy per batch / interval */
#define GPUPROF_ADVICE_STAGE_SATURATED 0.70     /* one stage alone */
#define GPUPROF_ADVICE_LOW_FILL 0.75
#define GPUPROF_ADVICE_TIMEOUT_SHARE 0.10
#define GPUPROF_ADVICE_FALLING 0.80     /* per-frame time at high fill / low */
#define GPUPROF_ADVICE_INFER_UTIL 0.10  /* least util for the infer rule */

gdouble gpuprof_advice_stage_util (const GpuprofStageRow * stage,
    const GpuprofBatchRow * agg);
GPUPROF_API
gdouble gpuprof_advice_thread_util (const GpuprofSnapshot * snap,
    const GpuprofStageRow * stage);
const GpuprofBatchRow *gpuprof_advice_batch_of (const GpuprofSnapshot * snap,
    const GpuprofStageRow * stage);

/* rules: each appends its advice rows to 'out' and returns how many */
GPUPROF_API
guint gpuprof_advice_mux_rule (const GpuprofBatchRow * agg, GArray * out);
GPUPROF_API
guint gpuprof_advice_infer_rule (const GpuprofStageRow * stage,
    const GpuprofBatchRow * agg, GArray * out);
guint gpuprof_advice_saturated_rule (const GpuprofSnapshot * snap,
    const GpuprofStageRow * stage, GArray * out);

/* util and limiting of every stage row, then snap->advice, in order */
GPUPROF_API
void gpuprof_advice_compute (GpuprofSnapshot * snap);
GPUPROF_API
const GpuprofStageRow *gpuprof_advice_limiting (const GpuprofSnapshot * snap);
GPUPROF_API
gboolean gpuprof_advice_is_saturated (const GpuprofSnapshot * snap,
    const GpuprofStageRow * stage);

G_END_DECLS
