/* Workload for user symbol tests: most of its time inside libc's qsort, whose merge sort helper
 * (msort_with_tmp) is a local symbol, named only by libc's separate debug file. */
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
  return *(const int *)a - *(const int *)b;
}

int main(int argc, char **argv) {
  static int v[200000];
  int rounds = argc > 1 ? atoi(argv[1]) : 20;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < 200000; i++) v[i] = rand();
    qsort(v, 200000, sizeof v[0], cmp);
  }
  printf("%d\n", v[0] >= 0);
  return 0;
}
