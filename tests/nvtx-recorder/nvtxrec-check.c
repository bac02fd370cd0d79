/* gpuprof NVTX recorder: checks over the recorded events.
 *
 * Every check replays a snapshot of the events: push/pop per (domain,
 * thread) in event order, start/end per range id. Domains are interned, so
 * they are compared by pointer.
 */

#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "nvtxrec-private.h"

/* What one replay of the events found. */
typedef struct
{
  NvtxrecEvent *ev;
  size_t n;
  size_t *dom_of;               /* per event: index into stats */
  NvtxrecDomainStats *stats;    /* per domain, first-appearance order */
  size_t n_domains;
  /* first error per domain, and its event index (SIZE_MAX: none) */
  char **nest_err, **range_err;
  size_t *nest_err_at, *range_err_at;
} Replay;

static void *
xcalloc (size_t n, size_t size)
{
  void *p = calloc (n ? n : 1, size);

  if (!p)
    abort ();
  return p;
}

/* Sets dom_of[] and allocates the per-domain arrays. */
static void
index_domains (Replay * r)
{
  const char **names = NULL;
  size_t cap = 0, i, d = 0;

  for (i = 0; i < r->n; i++) {
    const char *domain = r->ev[i].domain;

    /* Few domains (one per element), and runs of events in one domain. */
    if (i == 0 || domain != r->ev[i - 1].domain)
      for (d = 0; d < r->n_domains && names[d] != domain; d++);
    if (d == r->n_domains) {
      if (r->n_domains == cap) {
        cap = cap ? 2 * cap : 64;
        names = realloc (names, cap * sizeof (*names));
        if (!names)
          abort ();
      }
      names[r->n_domains++] = domain;
    }
    r->dom_of[i] = d;
  }

  r->stats = xcalloc (r->n_domains, sizeof (*r->stats));
  r->nest_err = xcalloc (r->n_domains, sizeof (*r->nest_err));
  r->range_err = xcalloc (r->n_domains, sizeof (*r->range_err));
  r->nest_err_at = xcalloc (r->n_domains, sizeof (*r->nest_err_at));
  r->range_err_at = xcalloc (r->n_domains, sizeof (*r->range_err_at));
  for (d = 0; d < r->n_domains; d++) {
    r->stats[d].domain = names[d];
    r->nest_err_at[d] = r->range_err_at[d] = SIZE_MAX;
  }
  free (names);
}

static void
set_error (char **err, size_t * err_at, size_t at, char *msg)
{
  if (*err_at != SIZE_MAX && *err_at <= at) {
    free (msg);
    return;
  }
  free (*err);
  *err = msg;
  *err_at = at;
}

static int
cmp_nesting (const void *a, const void *b, void *data)
{
  const Replay *r = data;
  const NvtxrecEvent *ev = r->ev;
  size_t i = *(const size_t *) a, j = *(const size_t *) b;

  if (r->dom_of[i] != r->dom_of[j])
    return r->dom_of[i] < r->dom_of[j] ? -1 : 1;
  if (ev[i].tid != ev[j].tid)
    return ev[i].tid < ev[j].tid ? -1 : 1;
  return i < j ? -1 : i > j;
}

static int
cmp_ranges (const void *a, const void *b, void *data)
{
  const Replay *r = data;
  const NvtxrecEvent *ev = r->ev;
  size_t i = *(const size_t *) a, j = *(const size_t *) b;

  if (ev[i].range_id != ev[j].range_id)
    return ev[i].range_id < ev[j].range_id ? -1 : 1;
  return i < j ? -1 : i > j;
}

/* Indices of events of @k1 or @k2, sorted by @cmp. */
static size_t *
sorted_indices (Replay * r, NvtxrecKind k1, NvtxrecKind k2,
    int (*cmp) (const void *, const void *, void *), size_t * n_out)
{
  size_t *idx = xcalloc (r->n, sizeof (*idx));
  size_t i, n = 0;

  for (i = 0; i < r->n; i++)
    if (r->ev[i].kind == k1 || r->ev[i].kind == k2)
      idx[n++] = i;
  qsort_r (idx, n, sizeof (*idx), cmp, r);
  *n_out = n;
  return idx;
}

/* @idx[@first..@last) are the pushes/pops of one thread in one domain. */
static void
replay_thread_nesting (Replay * r, const size_t * idx, size_t first,
    size_t last, size_t * open)
{
  size_t d = r->dom_of[idx[first]], depth = 0, k;
  NvtxrecDomainStats *st = &r->stats[d];

  for (k = first; k < last; k++) {
    const NvtxrecEvent *e = &r->ev[idx[k]];

    if (e->kind == NVTXREC_PUSH) {
      open[depth++] = idx[k];
      if (depth > st->max_depth)
        st->max_depth = depth;
    } else if (depth > 0) {
      depth--;
    } else {
      st->n_nesting_errors++;
      set_error (&r->nest_err[d], &r->nest_err_at[d], idx[k],
          nvtxrec_strdup_printf ("event #%zu: pop in domain \"%s\" on "
              "thread %u with no open push", idx[k], e->domain, e->tid));
    }
  }
  if (depth > 0) {
    const NvtxrecEvent *e = &r->ev[open[0]];

    st->n_nesting_errors += depth;
    set_error (&r->nest_err[d], &r->nest_err_at[d], open[0],
        nvtxrec_strdup_printf ("event #%zu: push \"%s\" in domain \"%s\" on "
            "thread %u never popped (%zu left open)", open[0],
            e->message ? e->message : "", e->domain, e->tid, depth));
  }
}

static void
replay_nesting (Replay * r)
{
  size_t n, first, last;
  size_t *idx = sorted_indices (r, NVTXREC_PUSH, NVTXREC_POP, cmp_nesting, &n);
  size_t *open = xcalloc (n, sizeof (*open));

  for (first = 0; first < n; first = last) {
    const NvtxrecEvent *e = &r->ev[idx[first]];

    for (last = first + 1; last < n; last++)
      if (r->dom_of[idx[last]] != r->dom_of[idx[first]] ||
          r->ev[idx[last]].tid != e->tid)
        break;
    replay_thread_nesting (r, idx, first, last, open);
  }
  free (open);
  free (idx);
}

/* @idx[@first..@last) are the starts/ends of one range id. */
static void
replay_one_range (Replay * r, const size_t * idx, size_t first, size_t last)
{
  const NvtxrecEvent *start = NULL, *end = NULL;
  size_t start_at = SIZE_MAX, end_at = SIZE_MAX, n_start = 0, n_end = 0, k, d;
  char *msg = NULL;

  for (k = first; k < last; k++) {
    if (r->ev[idx[k]].kind == NVTXREC_START) {
      n_start++;
      if (!start) {
        start = &r->ev[idx[k]];
        start_at = idx[k];
      }
    } else {
      n_end++;
      if (!end) {
        end = &r->ev[idx[k]];
        end_at = idx[k];
      }
    }
  }
  /* The range belongs to its start's domain. */
  d = r->dom_of[start ? start_at : end_at];
  if (!start)
    msg = nvtxrec_strdup_printf ("event #%zu: end of unknown range %llu in "
        "domain \"%s\"", end_at, (unsigned long long) end->range_id,
        end->domain);
  else if (n_start > 1)
    msg = nvtxrec_strdup_printf ("event #%zu: range id %llu started %zu "
        "times", start_at, (unsigned long long) start->range_id, n_start);
  else if (!end)
    msg = nvtxrec_strdup_printf ("event #%zu: range %llu (\"%s\") in domain "
        "\"%s\" never ended", start_at, (unsigned long long) start->range_id,
        start->message ? start->message : "", start->domain);
  else if (n_end > 1)
    msg = nvtxrec_strdup_printf ("event #%zu: range %llu (\"%s\") ended %zu "
        "times", start_at, (unsigned long long) start->range_id,
        start->message ? start->message : "", n_end);
  else if (end_at < start_at || end->ts < start->ts)
    msg = nvtxrec_strdup_printf ("event #%zu: range %llu (\"%s\") ends "
        "before it starts", start_at, (unsigned long long) start->range_id,
        start->message ? start->message : "");

  if (msg) {
    r->stats[d].n_unmatched++;
    set_error (&r->range_err[d], &r->range_err_at[d],
        start ? start_at : end_at, msg);
    return;
  }
  r->stats[d].n_ranges++;
  if (end->tid != start->tid)
    r->stats[d].n_cross_thread++;
}

static void
replay_ranges (Replay * r)
{
  size_t n, first, last;
  size_t *idx = sorted_indices (r, NVTXREC_START, NVTXREC_END, cmp_ranges, &n);

  for (first = 0; first < n; first = last) {
    for (last = first + 1; last < n; last++)
      if (r->ev[idx[last]].range_id != r->ev[idx[first]].range_id)
        break;
    replay_one_range (r, idx, first, last);
  }
  free (idx);
}

static void
count_kinds (Replay * r)
{
  size_t i;

  for (i = 0; i < r->n; i++) {
    NvtxrecDomainStats *st = &r->stats[r->dom_of[i]];

    switch (r->ev[i].kind) {
      case NVTXREC_PUSH:
        st->n_push++;
        break;
      case NVTXREC_POP:
        st->n_pop++;
        break;
      case NVTXREC_START:
        st->n_start++;
        break;
      case NVTXREC_END:
        st->n_end++;
        break;
      case NVTXREC_MARK:
        st->n_mark++;
        break;
      default:
        break;
    }
  }
}

static void
replay_init (Replay * r)
{
  memset (r, 0, sizeof (*r));
  r->ev = nvtxrec_snapshot (&r->n);
  r->dom_of = xcalloc (r->n, sizeof (*r->dom_of));
  index_domains (r);
  count_kinds (r);
  replay_nesting (r);
  replay_ranges (r);
}

static void
replay_clear (Replay * r)
{
  size_t i;

  for (i = 0; i < r->n_domains; i++) {
    free (r->nest_err[i]);
    free (r->range_err[i]);
  }
  free (r->nest_err);
  free (r->range_err);
  free (r->nest_err_at);
  free (r->range_err_at);
  free (r->stats);
  free (r->dom_of);
  free (r->ev);
}

static int
domain_matches (const char *filter, const char *domain)
{
  return !filter || strcmp (filter, domain) == 0;
}

/* Takes the earliest of the per-domain errors matching @domain. */
static char *
first_error (Replay * r, char **err, size_t * err_at, const char *domain)
{
  size_t i, best = SIZE_MAX;
  char *ret;

  for (i = 0; i < r->n_domains; i++)
    if (err[i] && domain_matches (domain, r->stats[i].domain) &&
        (best == SIZE_MAX || err_at[i] < err_at[best]))
      best = i;
  if (best == SIZE_MAX)
    return NULL;
  ret = err[best];
  err[best] = NULL;
  return ret;
}

/* ---- public API: checks ---- */

unsigned
nvtxrec_count (NvtxrecKind kind, const char *domain, const char *message)
{
  size_t n, i;
  NvtxrecEvent *ev = nvtxrec_snapshot (&n);
  unsigned count = 0;

  for (i = 0; i < n; i++)
    if (ev[i].kind == kind && domain_matches (domain, ev[i].domain) &&
        (!message || (ev[i].message && strcmp (message, ev[i].message) == 0)))
      count++;
  free (ev);
  return count;
}

char *
nvtxrec_check_nesting (void)
{
  Replay r;
  char *err;

  replay_init (&r);
  err = first_error (&r, r.nest_err, r.nest_err_at, NULL);
  replay_clear (&r);
  return err;
}

unsigned
nvtxrec_count_ranges (const char *domain)
{
  Replay r;
  unsigned n = 0;
  size_t i;

  replay_init (&r);
  for (i = 0; i < r.n_domains; i++)
    if (domain_matches (domain, r.stats[i].domain))
      n += r.stats[i].n_ranges;
  replay_clear (&r);
  return n;
}

char *
nvtxrec_check_ranges (const char *domain, unsigned *n_cross_thread)
{
  Replay r;
  char *err;
  size_t i;

  replay_init (&r);
  err = first_error (&r, r.range_err, r.range_err_at, domain);
  if (n_cross_thread) {
    *n_cross_thread = 0;
    for (i = 0; i < r.n_domains; i++)
      if (domain_matches (domain, r.stats[i].domain))
        *n_cross_thread += r.stats[i].n_cross_thread;
  }
  replay_clear (&r);
  return err;
}

size_t
nvtxrec_get_domain_stats (NvtxrecDomainStats * out, size_t max)
{
  Replay r;
  size_t n;

  replay_init (&r);
  n = r.n_domains;
  if (out && max)
    memcpy (out, r.stats, (n < max ? n : max) * sizeof (*out));
  replay_clear (&r);
  return n;
}

size_t
nvtxrec_get_thread_names (NvtxrecThreadName * out, size_t max)
{
  size_t n_ev, i, j, n = 0;
  NvtxrecEvent *ev = nvtxrec_snapshot (&n_ev);
  NvtxrecThreadName *names = xcalloc (n_ev, sizeof (*names));

  for (i = 0; i < n_ev; i++) {
    if (ev[i].kind != NVTXREC_NAME_THREAD)
      continue;
    for (j = 0; j < n && names[j].tid != ev[i].target_tid; j++);
    if (j == n)
      names[n++].tid = ev[i].target_tid;
    names[j].name = ev[i].message;      /* the last name wins */
  }
  if (out && max)
    memcpy (out, names, (n < max ? n : max) * sizeof (*out));
  free (names);
  free (ev);
  return n;
}

const char *
nvtxrec_thread_name (uint32_t tid)
{
  size_t n_ev, i;
  NvtxrecEvent *ev = nvtxrec_snapshot (&n_ev);
  const char *name = NULL;

  for (i = 0; i < n_ev; i++)
    if (ev[i].kind == NVTXREC_NAME_THREAD && ev[i].target_tid == tid)
      name = ev[i].message;
  free (ev);
  return name;
}
