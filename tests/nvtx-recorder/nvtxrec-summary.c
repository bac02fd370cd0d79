/* nvtxrec-summary FILE: per-domain totals of an NVTXREC_OUT JSON-lines file,
 * for GPU hosts without Nsight Systems.
 *
 * Exit status: 0 all good, 1 nesting errors or unmatched ranges, 2 the file
 * cannot be read.
 */

#include <stdio.h>
#include <stdlib.h>

#include "nvtxrec.h"

static void
print_domains (void)
{
  size_t n = nvtxrec_get_domain_stats (NULL, 0), i;
  NvtxrecDomainStats *stats = calloc (n ? n : 1, sizeof (*stats));

  nvtxrec_get_domain_stats (stats, n);
  /* The name goes last: element names have any length. */
  printf ("%8s %8s %8s %9s %8s %8s %6s %8s  %s\n", "pushes", "pops",
      "ranges", "unmatched", "xthread", "marks", "depth", "nesterr",
      "domain");
  for (i = 0; i < n; i++) {
    const NvtxrecDomainStats *s = &stats[i];

    printf ("%8u %8u %8u %9u %8u %8u %6u %8u  %s\n", s->n_push, s->n_pop,
        s->n_ranges, s->n_unmatched, s->n_cross_thread, s->n_mark,
        s->max_depth, s->n_nesting_errors,
        s->domain[0] ? s->domain : "(default)");
  }
  free (stats);
}

static void
print_threads (void)
{
  size_t n = nvtxrec_get_thread_names (NULL, 0), i;
  NvtxrecThreadName *names = calloc (n ? n : 1, sizeof (*names));

  nvtxrec_get_thread_names (names, n);
  printf ("threads:");
  for (i = 0; i < n; i++)
    printf (" %u=\"%s\"", names[i].tid, names[i].name);
  printf ("\n");
  free (names);
}

int
main (int argc, char **argv)
{
  char *error = NULL, *nesting, *ranges;
  int status;
  long n;

  if (argc != 2) {
    fprintf (stderr, "usage: %s FILE\n"
        "  FILE: JSON lines written by libgpuprof-nvtxrec (NVTXREC_OUT)\n",
        argv[0]);
    return 2;
  }
  n = nvtxrec_load_jsonl (argv[1], &error);
  if (n < 0) {
    fprintf (stderr, "nvtxrec-summary: %s\n", error);
    free (error);
    return 2;
  }
  printf ("%s: %ld events\n", argv[1], n);
  print_domains ();
  print_threads ();

  nesting = nvtxrec_check_nesting ();
  ranges = nvtxrec_check_ranges (NULL, NULL);
  if (nesting)
    printf ("first nesting error: %s\n", nesting);
  if (ranges)
    printf ("first range error: %s\n", ranges);
  if (!nesting && !ranges)
    printf ("OK: pushes and pops nest, every range ended once\n");
  status = nesting || ranges ? 1 : 0;
  free (nesting);
  free (ranges);
  return status;
}
