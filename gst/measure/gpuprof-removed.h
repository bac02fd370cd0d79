/* gpuprof: what elements that left a pipeline during its run measured,
 * folded per factory (docs/tracer.md#removed).
 *
 * A service adds and removes cameras while its pipeline plays: each
 * camera's elements would keep a row (and their series on the metrics
 * endpoint, and their records in memory) until the run ends. Instead,
 * when an element leaves (gpuprof_objects_elements_of() hands it over
 * once), its row is added to its pipeline's totals for its factory — one
 * row per factory, however many come and go — and its record is freed
 * once it is destroyed. The totals are the run's: reset with it.
 *
 * Thread-safe (a lock of its own); the session calls it under its report
 * lock, as it takes snapshots. */
#pragma once

#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

typedef struct _GpuprofRemoved GpuprofRemoved;

GpuprofRemoved *gpuprof_removed_new (void);
void gpuprof_removed_free (GpuprofRemoved * r);
/* adds @row (one element's figures: factory, role, last set; its strings
 * are copied) to @pipeline_id's totals */
void gpuprof_removed_add (GpuprofRemoved * r, guint32 pipeline_id,
    const GpuprofRemovedRow * row);
/* @pipeline_id's totals into @snap's removed table */
void gpuprof_removed_copy (GpuprofRemoved * r, guint32 pipeline_id,
    GpuprofSnapshot * snap);
/* any element of @pipeline_id's run was folded */
gboolean gpuprof_removed_any (GpuprofRemoved * r, guint32 pipeline_id);
/* a new run of @pipeline_id counts from zero */
void gpuprof_removed_reset (GpuprofRemoved * r, guint32 pipeline_id);

G_END_DECLS
