/* gpuprof: a fixed table from a buffer's pointer to two numbers, to follow
 * buffers downstream (batches in gpuprof-batch.c, stream origins in
 * gpuprof-streams.c).
 *
 * Two ways: the entry the pointer hashes to and its neighbour; when both
 * hold other buffers the first is replaced (the older, mostly). Lock-free
 * and allocation-free: a writer clears the key, writes the values and sets
 * the key again; a reader reads the key, the values, and the key again. A
 * recycled pointer (a pool's buffer) simply gets new values.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  gconstpointer key;
  guint64 a, b;
} GpuprofBufEntry;

/* 'bits': the table has 1 << bits entries */
static inline guint
gpuprof_bufmap_index (gconstpointer key, guint bits)
{
  /* buffers lie 16-byte aligned: a multiplicative hash spreads them, its
   * top bits are the index */
  return (guint) ((((guintptr) key >> 4) * G_GUINT64_CONSTANT
          (0x9E3779B97F4A7C15)) >> (64 - bits));
}

static inline gboolean
gpuprof_bufmap_lookup (GpuprofBufEntry * t, guint bits, gconstpointer key,
    guint64 * a, guint64 * b)
{
  guint i = gpuprof_bufmap_index (key, bits), k, mask = (1u << bits) - 1;

  for (k = 0; k < 2; k++) {
    GpuprofBufEntry *e = &t[(i + k) & mask];
    if (__atomic_load_n (&e->key, __ATOMIC_ACQUIRE) != key)
      continue;
    *a = __atomic_load_n (&e->a, __ATOMIC_RELAXED);
    *b = __atomic_load_n (&e->b, __ATOMIC_RELAXED);
    if (__atomic_load_n (&e->key, __ATOMIC_ACQUIRE) == key)
      return TRUE;
  }
  return FALSE;
}

static inline void
gpuprof_bufmap_insert (GpuprofBufEntry * t, guint bits, gconstpointer key,
    guint64 a, guint64 b)
{
  guint i = gpuprof_bufmap_index (key, bits), mask = (1u << bits) - 1;
  GpuprofBufEntry *e = &t[i], *next = &t[(i + 1) & mask];
  gconstpointer k = __atomic_load_n (&e->key, __ATOMIC_RELAXED);
  gconstpointer nk = __atomic_load_n (&next->key, __ATOMIC_RELAXED);

  /* a taken entry: the neighbour if free or already this buffer's */
  if (k != key && (nk == key || (k && !nk)))
    e = next;
  __atomic_store_n (&e->key, NULL, __ATOMIC_RELEASE);
  __atomic_store_n (&e->a, a, __ATOMIC_RELAXED);
  __atomic_store_n (&e->b, b, __ATOMIC_RELAXED);
  __atomic_store_n (&e->key, key, __ATOMIC_RELEASE);
}

static inline void
gpuprof_bufmap_remove (GpuprofBufEntry * t, guint bits, gconstpointer key)
{
  guint i = gpuprof_bufmap_index (key, bits), k, mask = (1u << bits) - 1;

  for (k = 0; k < 2; k++) {
    gconstpointer expected = key;
    __atomic_compare_exchange_n (&t[(i + k) & mask].key, &expected, NULL,
        FALSE, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
  }
}

G_END_DECLS
